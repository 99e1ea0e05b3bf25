import { workloadStream } from '@hcn/contracts';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BENCH_ADMIN_HEADERS,
  BENCH_JOIN_TOKEN,
  EmbeddedBenchHub,
  postAsAdmin,
  startEmbeddedBenchHub,
} from './embedded-bench-hub';
import { FleetSimulator } from './fleet-simulator';
import { PlacementAcker } from './placement-acker';
import { percentile, progress, report } from './support';

/** Submissions of each kind (same-site and cross-site, interleaved). */
const EACH = Number(process.env.BENCH_FED_PLACEMENTS ?? 200);
/** Submissions per second, both kinds together. */
const RATE = Number(process.env.BENCH_FED_RATE ?? 10);
const NODES = Number(process.env.BENCH_FED_NODES ?? 20);
const LOCAL_DOMAIN = 'parent-local';
const CHILD_DOMAIN = 'child-local';
/** The parent's nodes have 2 cores, the child's 64: a 4-core workload fits only the child. */
const SAME_SITE_MILLIS = 50;
const CROSS_SITE_MILLIS = 4000;
const FAST_SUMMARIES = {
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '1',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '500',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A site of the bench: its embedded hub, simulated fleet and the acker that records run commands. */
interface BenchSite {
  readonly hub: EmbeddedBenchHub;
  readonly fleet: FleetSimulator;
  readonly acker: PlacementAcker;
}

async function startSite(hub: EmbeddedBenchHub, domain: string, cpuCores: number): Promise<BenchSite> {
  const fleet = new FleetSimulator({
    hubUrl: hub.hub.url,
    joinToken: BENCH_JOIN_TOKEN,
    bus: hub.bus,
    domains: [domain],
    cpuCores,
  });
  await fleet.grow(NODES, 8);
  fleet.start(5000, 20);
  const acker = new PlacementAcker(hub.bus, fleet);
  await acker.start([domain]);
  return { hub, fleet, acker };
}

/** Free CPU of the child as the parent last heard it (its summary), or undefined before one arrived. */
async function childFreeCpu(parentUrl: string): Promise<number | undefined> {
  const response = await fetch(`${parentUrl}/v1/federation/sites/child`, {
    headers: BENCH_ADMIN_HEADERS,
  });
  if (response.status !== 200) return undefined;
  const site = (await response.json()) as { summary: { cpuMillis: { free: number } } | null };
  return site.summary?.cpuMillis.free;
}

/** p50/p99/max of latencies in ms. */
function spread(values: number[]): { p50: number; p99: number; max: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    n: sorted.length,
  };
}

/**
 * `npm run bench -- federation-placement`: a parent site and a child site on loopback, each an embedded hub (hub,
 * projector, in-process bus) on its own PostgreSQL database with NODES simulated nodes. Interleaved at RATE per
 * second: same-site submissions (fit the parent's 2-core nodes) and cross-site ones (4 cores: only the child's
 * 64-core nodes fit, so the parent delegates them). Latency: POST on the parent -> the run command reaching the
 * simulated agent of the site that runs it (the parent's bus, or the child's after the delegation request, the
 * child's admission, decision and dispatch). Reports p50/p99 of each and what the cross-site hop adds.
 */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hcn-fed-bench-'));
  const parentHub = await startEmbeddedBenchHub('fedparent', {
    ...FAST_SUMMARIES,
    HCN_SITE_ID: 'parent',
    HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: '30',
  });
  const token = (await postAsAdmin(parentHub.hub.url, '/v1/federation/join-tokens', {
    siteId: 'child',
    ttlSeconds: 3600,
  })) as { token: string };
  const childHub = await startEmbeddedBenchHub('fedchild', {
    ...FAST_SUMMARIES,
    HCN_SITE_ID: 'child',
    HCN_FEDERATION_PARENT_URL: parentHub.hub.url,
    HCN_FEDERATION_JOIN_TOKEN: token.token,
    HCN_FEDERATION_CREDENTIAL_FILE: join(dir, 'child.credential'),
    HCN_FEDERATION_NAMESPACES: '*',
  });
  const parent = await startSite(parentHub, LOCAL_DOMAIN, 2);
  const child = await startSite(childHub, CHILD_DOMAIN, 64);
  try {
    for (let i = 0; (await childFreeCpu(parentHub.hub.url)) !== NODES * 64_000; i++) {
      if (i > 120) throw new Error('the parent never heard the child summary with its whole fleet');
      await sleep(500);
    }
    const load = loadavg()[0];
    console.log(
      `[bench] parent and child, ${NODES} nodes each; ${EACH} placements of each kind at ${RATE}/s; load ${load.toFixed(2)}`,
    );
    const submittedAt = new Map<string, number>();
    const cross: string[] = [];
    const same: string[] = [];
    const gap = 1000 / RATE;
    const t0 = Date.now();
    for (let i = 0; i < 2 * EACH; i++) {
      const isCross = i % 2 === 1;
      await sleep(Math.max(0, t0 + i * gap - Date.now()));
      const cpuMillis = isCross ? CROSS_SITE_MILLIS : SAME_SITE_MILLIS;
      const spec = {
        name: `fed-${i}`,
        command: 'sleep',
        args: ['600'],
        resources: { cpuMillis, memoryBytes: 2 ** 20 },
      };
      const at = Date.now();
      const answer = (await postAsAdmin(parentHub.hub.url, '/v1/workloads', spec)) as { workloadId: string };
      submittedAt.set(answer.workloadId, at);
      (isCross ? cross : same).push(answer.workloadId);
      progress('submitted', i + 1, 2 * EACH);
    }
    const siteWorkloadOf = new Map<string, string>();
    const delegatedAt = new Map<string, number>();
    const deadline = Date.now() + 120_000;
    for (;;) {
      for (const id of cross.filter((w) => !siteWorkloadOf.has(w))) {
        const events = await parentHub.store.readStream(workloadStream(id));
        const accepted = events.find((e) => e.type === 'DelegationAccepted');
        const delegated = events.find((e) => e.type === 'AllocationDelegated');
        if (delegated) delegatedAt.set(id, Date.parse(delegated.recordedAt));
        if (accepted?.type === 'DelegationAccepted') siteWorkloadOf.set(id, accepted.data.siteWorkloadId);
      }
      const sameDone = same.filter((w) => parent.acker.received.has(w)).length;
      const crossDone = cross.filter((w) => child.acker.received.has(siteWorkloadOf.get(w) ?? '')).length;
      if (sameDone === same.length && crossDone === cross.length) break;
      if (Date.now() > deadline)
        throw new Error(
          `not all placed: same ${sameDone}/${same.length}, cross ${crossDone}/${cross.length}`,
        );
      await sleep(250);
    }
    const sameSite = spread(same.map((w) => parent.acker.received.get(w)! - submittedAt.get(w)!));
    const crossSite = spread(
      cross.map((w) => child.acker.received.get(siteWorkloadOf.get(w)!)! - submittedAt.get(w)!),
    );
    // where the cross-site time goes: the parent's decision, the hand-over (request, the child's admission), the
    // child's placement and dispatch
    const childSubmittedAt = new Map<string, number>();
    for (const id of cross) {
      const events = await childHub.store.readStream(workloadStream(siteWorkloadOf.get(id)!));
      childSubmittedAt.set(id, Date.parse(events[0].recordedAt));
    }
    const crossStages = {
      submitToDelegated: spread(cross.map((w) => delegatedAt.get(w)! - submittedAt.get(w)!)),
      delegatedToChildSubmitted: spread(cross.map((w) => childSubmittedAt.get(w)! - delegatedAt.get(w)!)),
      childSubmittedToAgent: spread(
        cross.map((w) => child.acker.received.get(siteWorkloadOf.get(w)!)! - childSubmittedAt.get(w)!),
      ),
    };
    report('federation-placement', {
      nodesPerSite: NODES,
      placementsEach: EACH,
      ratePerSecond: RATE,
      loadAverageAtStart: +load.toFixed(2),
      sameSiteMs: sameSite,
      crossSiteMs: crossSite,
      crossSiteStagesMs: crossStages,
      crossSiteAddsMs: { p50: crossSite.p50 - sameSite.p50, p99: crossSite.p99 - sameSite.p99 },
    });
  } finally {
    for (const site of [child, parent]) {
      site.fleet.stop();
      await site.acker.stop();
    }
    await childHub.close();
    await parentHub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
