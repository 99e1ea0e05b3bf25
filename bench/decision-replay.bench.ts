import { CLUSTER_EVENT_TYPES, ClusterFold } from '@hcn/cluster';
import { Position, comparePositions, workloadStream } from '@hcn/contracts';
import { loadCheckpoint } from '@hcn/read-models';
import { SnapshotAtDecision, decisionBasis, explainDecision, scanLog } from '@hcn/audit';
import { loadavg } from 'node:os';
import { subscriptionPosition } from '../test/support/subscription-position';
import { storedCheckpoints } from '../apps/hub/src/queries/audit/explain/stored-checkpoints';
import {
  BENCH_JOIN_TOKEN,
  EmbeddedBenchHub,
  postAsAdmin,
  startEmbeddedBenchHub,
  submitInBatches,
} from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { percentile, progress, report } from './support';

const NODES = Number(process.env.BENCH_REPLAY_NODES ?? 1000);
const WORKLOADS = Number(process.env.BENCH_REPLAY_WORKLOADS ?? 300);
const REPLAYS = Number(process.env.BENCH_REPLAY_RUNS ?? 100);
/** The projector's spacing of cluster checkpoints in this run (HCN_CLUSTER_CHECKPOINT_EVENTS; its default 500). */
const CHECKPOINT_EVENTS = Number(process.env.HCN_CLUSTER_CHECKPOINT_EVENTS ?? 500);
/** Target of issue 18: one hop at 1,000 candidates replayed within 20 ms at p99. */
const TARGET_P99_MS = 20;

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (v: number) => +v.toFixed(2);
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1]),
  };
}

/**
 * `npm run bench -- decision-replay`: replaying one recorded decision whose only hop judged a scope of NODES nodes
 * (issue 18: p99 ≤ 20 ms at 1,000 candidates, so the dashboard's timeline stays instant). An embedded hub on
 * PostgreSQL with NODES simulated nodes in one flat domain places WORKLOADS workloads; then REPLAYS decisions, picked
 * round the placed workloads, are replayed four ways: `explainDecision` end to end from the start of the log (the
 * workload's stream read, the cluster events up to the decision's basis scanned and folded, the scheduler re-run,
 * compared); the same from the projector's latest cluster checkpoint before the basis (what the API does); the
 * re-run and comparison alone on a snapshot already folded (what the decision itself costs); and the baseline, the
 * scan and fold alone.
 */
export async function run(): Promise<void> {
  const embedded = await startEmbeddedBenchHub('replay');
  const { store, bus, hub } = embedded;
  try {
    await postAsAdmin(hub.url, '/v1/domains', { domainId: 'pool', policy: 'least-loaded' });
    const fleet = new FleetSimulator({
      hubUrl: hub.url,
      joinToken: BENCH_JOIN_TOKEN,
      bus,
      domains: ['pool'],
    });
    await fleet.grow(NODES, 16, (done) => progress('registering nodes', done, NODES));
    // decisions taken on a fleet at rest: the view has read its registrations from the log (a checkpoint before a
    // decision's basis can only be used up to the position its view had read: registrations applied ahead of it
    // are not in a checkpoint's reach)
    await viewCaughtUp(embedded);
    const ids = await submitInBatches(hub.url, WORKLOADS, 'replay', {
      constraints: { domains: { affinity: ['pool'] } },
    });
    await checkpointsCaughtUp(embedded);
    let clusterEventsInLog = 0;
    await scanLog(store, () => void clusterEventsInLog++, {
      filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
    });
    const loadCheckpoints = storedCheckpoints(embedded.readModels);
    const restoreMs: number[] = [];
    const checkpoints: typeof loadCheckpoints = async (p) => {
      const t0 = process.hrtime.bigint();
      const found = await loadCheckpoints(p);
      restoreMs.push(ms(t0));
      return found;
    };
    const fromCheckpoint: number[] = [];
    let checkpointMismatches = 0;
    let foldedAfterCheckpoint = 0;
    const endToEnd: number[] = [];
    const decisionOnly: number[] = [];
    const foldOnly: number[] = [];
    let mismatches = 0;
    let members = 0;
    let judged = 0;
    let clusterEvents = 0;
    for (let i = 0; i < REPLAYS; i++) {
      const id = ids[Math.floor(((i * 37) % REPLAYS) * (ids.length / REPLAYS))]; // spread over the whole log
      let t = process.hrtime.bigint();
      const events = await store.readStream(workloadStream(id));
      const replay = await explainDecision(store, events, { decision: 0 }, {});
      endToEnd.push(ms(t));
      if (!replay.matches) mismatches += 1;
      clusterEvents = replay.clusterEvents;
      t = process.hrtime.bigint();
      const stored = await explainDecision(
        store,
        await store.readStream(workloadStream(id)),
        { decision: 0 },
        {
          checkpoints,
        },
      );
      fromCheckpoint.push(ms(t));
      if (!stored.matches || stored.checkpoint === undefined) checkpointMismatches += 1;
      foldedAfterCheckpoint = Math.max(foldedAfterCheckpoint, stored.clusterEvents);
      t = process.hrtime.bigint();
      const at = new SnapshotAtDecision(decisionBasis(events, { decision: 0 }), new ClusterFold());
      await scanLog(store, (e) => at.accept(e), {
        filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
      });
      foldOnly.push(ms(t));
      t = process.hrtime.bigint();
      const again = at.replay();
      decisionOnly.push(ms(t));
      const hop = again.recorded.hops[again.recorded.hops.length - 1];
      members = Math.max(members, hop?.members ?? 0);
      judged = Math.max(judged, hop?.judged ?? 0);
      progress('replaying', i + 1, REPLAYS);
    }
    const decision = summary(decisionOnly);
    report('decision-replay', {
      nodes: NODES,
      placed: ids.length,
      replays: REPLAYS,
      clusterEventsInLog,
      clusterEventsFolded: clusterEvents,
      lastHop: { members, judged },
      mismatches,
      explainEndToEndMs: summary(endToEnd),
      checkpointEvents: CHECKPOINT_EVENTS,
      explainFromCheckpointMs: summary(fromCheckpoint),
      maxFoldedAfterCheckpoint: foldedAfterCheckpoint,
      checkpointLoadAndRestoreMs: summary(restoreMs),
      checkpointMismatchesOrUnused: checkpointMismatches,
      baselineScanAndFoldMs: summary(foldOnly),
      decisionReplayMs: decision,
      target: {
        p99Ms: TARGET_P99_MS,
        metByDecisionReplay: decision.p99 <= TARGET_P99_MS,
        metByExplainFromCheckpoint: summary(fromCheckpoint).p99 <= TARGET_P99_MS,
      },
      loadAverage: loadavg()[0],
    });
  } finally {
    await embedded.close();
  }
}

/** Waits until the hub's cluster view has read every cluster event of the log (hcn_subscription_position). */
async function viewCaughtUp(embedded: EmbeddedBenchHub): Promise<void> {
  const last = await lastClusterPosition(embedded);
  for (let i = 0; i < 600; i++) {
    const handled = await subscriptionPosition(embedded.hub.url, 'cluster-view');
    if (!last || (handled !== undefined && BigInt(handled) >= last.commit)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the hub's cluster view did not catch up");
}

/** The position of the last cluster event in the log. */
async function lastClusterPosition(embedded: EmbeddedBenchHub): Promise<Position | undefined> {
  let last: Position | undefined;
  await scanLog(embedded.store, (e) => void (last = e.position), {
    filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
  });
  return last;
}

/** Waits until the projector has read every cluster event of the log (its checkpoints then reach the last ones). */
async function checkpointsCaughtUp(embedded: EmbeddedBenchHub): Promise<void> {
  const last = await lastClusterPosition(embedded);
  for (let i = 0; i < 600; i++) {
    const at = await loadCheckpoint(embedded.readModels.manager, 'node-state');
    if (!last || (at && comparePositions(at, last) >= 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the projector did not catch up');
}
