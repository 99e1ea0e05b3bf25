import { CLUSTER_EVENT_TYPES, ClusterFold } from '@hcn/cluster';
import { workloadStream } from '@hcn/contracts';
import { SnapshotAtDecision, decisionBasis, explainDecision, scanLog } from '@hcn/audit';
import { loadavg } from 'node:os';
import { BENCH_JOIN_TOKEN, postAsAdmin, startEmbeddedBenchHub, submitInBatches } from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { percentile, progress, report } from './support';

const NODES = Number(process.env.BENCH_REPLAY_NODES ?? 1000);
const WORKLOADS = Number(process.env.BENCH_REPLAY_WORKLOADS ?? 300);
const REPLAYS = Number(process.env.BENCH_REPLAY_RUNS ?? 100);
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
 * round the placed workloads, are replayed three ways: `explainDecision` end to end (the workload's stream read,
 * the cluster events up to the decision's basis scanned from the log and folded, the scheduler re-run, compared);
 * the re-run and comparison alone on a snapshot already folded (what the decision itself costs); and the baseline,
 * the scan and fold alone.
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
    const ids = await submitInBatches(hub.url, WORKLOADS, 'replay', {
      constraints: { domains: { affinity: ['pool'] } },
    });
    const endToEnd: number[] = [];
    const decisionOnly: number[] = [];
    const foldOnly: number[] = [];
    let mismatches = 0;
    let members = 0;
    let judged = 0;
    let clusterEvents = 0;
    for (let i = 0; i < REPLAYS; i++) {
      const id = ids[(i * 7) % ids.length];
      let t = process.hrtime.bigint();
      const events = await store.readStream(workloadStream(id));
      const replay = await explainDecision(store, events, { decision: 0 }, {});
      endToEnd.push(ms(t));
      if (!replay.matches) mismatches += 1;
      clusterEvents = replay.clusterEvents;
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
      clusterEventsFolded: clusterEvents,
      lastHop: { members, judged },
      mismatches,
      explainEndToEndMs: summary(endToEnd),
      baselineScanAndFoldMs: summary(foldOnly),
      decisionReplayMs: decision,
      target: { p99Ms: TARGET_P99_MS, metByDecisionReplay: decision.p99 <= TARGET_P99_MS },
      loadAverage: loadavg()[0],
    });
  } finally {
    await embedded.close();
  }
}
