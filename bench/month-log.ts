import { deterministicUuid, workloadStream } from '@hcn/contracts';
import type { AppendRequest, EventStore } from '@hcn/eventstore';
import { MONTH_START, SITES, benchSpec, candidates, ev, instantOf, registration } from './audit-fixtures';
import { progress } from './support';

/** Nodes of the generated month (two A100-80G each, spread over the sites). */
const NODES = 200;
/** Events of one workload: submission, three hops, placement, start, completion. */
const WORKLOAD_EVENTS = 7;

/** What the generated month holds besides the fleet, workloads and heartbeats. */
export interface MonthLogOptions {
  /** Also the node side of each placement: CapacityReserved and CapacityReleased on the node's stream. */
  readonly capacity?: boolean;
}

/**
 * Writes the fleet, then workloads (7 events each, 9 with capacity events) and heartbeats (half the log) until
 * `target` events.
 */
export async function writeMonthLog(
  store: EventStore,
  target: number,
  options: MonthLogOptions = {},
): Promise<{ events: number; seconds: number }> {
  const started = Date.now();
  const setup: AppendRequest[] = [];
  for (const region of new Set(SITES.map((s) => s.region))) {
    setup.push({
      streamId: `domain-${region}`,
      events: [
        ev(
          'DomainDefined',
          { domainId: region, parentId: null, region, labels: {}, policy: 'spread', headNodeId: null },
          MONTH_START,
          `d${region}`,
        ),
      ],
      expectedRevision: 'any',
    });
  }
  for (const { region, site } of SITES) {
    setup.push({
      streamId: `domain-${site}`,
      events: [
        ev(
          'DomainDefined',
          { domainId: site, parentId: region, region: null, labels: {}, policy: 'spread', headNodeId: null },
          MONTH_START,
          `d${site}`,
        ),
      ],
      expectedRevision: 'any',
    });
  }
  const nodes = Array.from({ length: NODES }, (_, i) => deterministicUuid(`bench-node-${i}`));
  nodes.forEach((nodeId, i) =>
    setup.push({
      streamId: `node-${nodeId}`,
      events: [
        ev('NodeRegistered', registration(nodeId, SITES[i % SITES.length].site, i), MONTH_START, `n${i}`),
      ],
      expectedRevision: 'any',
    }),
  );
  await store.appendMany(setup);
  let written = setup.length;
  const perWorkload = WORKLOAD_EVENTS + (options.capacity ? 2 : 0);
  const workloads = Math.floor(target / 2 / perWorkload);
  for (let w = 0; written < target;) {
    const batch: AppendRequest[] = [];
    for (let k = 0; k < 70 && w < workloads; k++, w++) {
      batch.push(workloadRequest(w, workloads, nodes));
      if (options.capacity) batch.push(capacityRequest(w, workloads, nodes));
    }
    for (let k = 0; k < 10; k++) batch.push(heartbeatRequest(written + k, target, nodes));
    const outcomes = await store.appendMany(batch);
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
    written += batch.reduce((n, r) => n + r.events.length, 0);
    progress('writing the log', Math.min(written, target), target);
  }
  return { events: written, seconds: (Date.now() - started) / 1000 };
}

function workloadRequest(w: number, n: number, nodes: readonly string[]): AppendRequest {
  const workloadId = deterministicUuid(`bench-w${w}`);
  const t = instantOf(w, n);
  const site = SITES[w % SITES.length];
  const nodeId = nodes[w % nodes.length];
  const allocationId = deterministicUuid(`bench-a${w}`);
  const spec = benchSpec(`w${w}`, `ns-${w % 20}`, w % 50 === 0 ? 'us' : undefined);
  const base = { workloadId, instance: 0, attempt: 0 };
  const hop = (h: number, fromScope: string | null, to: string, toKind: string) =>
    ev(
      'WorkloadDelegated',
      { ...base, hop: h, fromScope, to, toKind, policy: 'spread', candidates: candidates(4, h) },
      t,
      `w${w}h${h}`,
    );
  const resources = { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, accelerators: 1 };
  const events = [
    ev('WorkloadSubmitted', { workloadId, spec, idempotencyKey: null }, t, `w${w}s`),
    hop(0, null, site.region, 'domain'),
    hop(1, site.region, site.site, 'domain'),
    hop(2, site.site, nodeId, 'node'),
    ev(
      'AllocationPlaced',
      { ...base, allocationId, generation: 1, nodeId, domainId: site.site, resources },
      t,
      `w${w}p`,
    ),
    ev(
      'AllocationStarted',
      { workloadId, allocationId, nodeId, pid: 1, startedAt: new Date(t).toISOString() },
      t,
      `w${w}st`,
    ),
    ev(
      'AllocationCompleted',
      { workloadId, allocationId, nodeId, exitCode: 0, endedAt: new Date(t + 3_600_000).toISOString() },
      t + 3_600_000,
      `w${w}c`,
    ),
  ];
  return { streamId: workloadStream(workloadId), events, expectedRevision: 'no_stream' };
}

/** The node side of workload `w`'s placement: its capacity reserved, then released when it completed. */
function capacityRequest(w: number, n: number, nodes: readonly string[]): AppendRequest {
  const nodeId = nodes[w % nodes.length];
  const workloadId = deterministicUuid(`bench-w${w}`);
  const allocationId = deterministicUuid(`bench-a${w}`);
  const t = instantOf(w, n);
  const resources = { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, accelerators: 1 };
  const events = [
    ev('CapacityReserved', { nodeId, allocationId, workloadId, resources }, t, `w${w}r`),
    ev('CapacityReleased', { nodeId, allocationId, reason: 'completed' }, t + 3_600_000, `w${w}x`),
  ];
  return { streamId: `node-${nodeId}`, events, expectedRevision: 'any' };
}

function heartbeatRequest(k: number, n: number, nodes: readonly string[]): AppendRequest {
  const nodeId = nodes[k % nodes.length];
  const t = instantOf(k, n);
  const usage = { cpuUsage: 0.4, memoryUsedBytes: 2 ** 30, diskUsedBytes: 0 };
  const events = Array.from({ length: 50 }, (_, i) =>
    ev(
      'NodeHeartbeatRecorded',
      { nodeId, seq: k * 50 + i, sentAt: new Date(t).toISOString(), usage, runningAllocations: [] },
      t,
      `hb${k}-${i}`,
    ),
  );
  return { streamId: `heartbeat-${nodeId}`, events, expectedRevision: 'any' };
}
