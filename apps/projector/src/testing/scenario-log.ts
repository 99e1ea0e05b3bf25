import {
  NewEvent,
  domainStream,
  heartbeatStream,
  nodeStream,
  quotaStream,
  workloadSpecSchema,
  workloadStream,
} from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { randomUUID } from 'node:crypto';

/** An event as a spec appends it (system actor). */
export function specEvent(type: string, data: unknown): NewEvent {
  return {
    eventId: randomUUID(),
    type,
    data,
    metadata: {
      correlationId: 'spec',
      causationId: 'spec',
      actor: { kind: 'system', id: 'spec' },
      occurredAt: new Date().toISOString(),
    },
  };
}

/** Ids used by the scenario, fresh per run. */
export interface ScenarioIds {
  readonly nodes: readonly string[];
  readonly workloads: readonly string[];
  readonly allocations: readonly string[];
}

/** Fresh ids: 4 nodes, 3 workloads, 5 allocations. */
export function scenarioIds(): ScenarioIds {
  const ids = (n: number): string[] => Array.from({ length: n }, () => randomUUID());
  return { nodes: ids(4), workloads: ids(3), allocations: ids(5) };
}

const RESOURCES = { cpuMillis: 1500, memoryBytes: 2 ** 30, accelerators: 1 };

/** `count` NVIDIA devices of 80 GiB, the first `unhealthy` of them at health 30. */
function gpus(count: number, unhealthy = 0) {
  return Array.from({ length: count }, (_, index) => ({
    index,
    vendor: 'nvidia',
    model: 'A100-80G',
    memoryBytes: 80 * 2 ** 30,
    numaNode: 0,
    health: index < unhealthy ? 30 : 100,
    interconnect: [],
  }));
}

function registration(nodeId: string, domainId: string, i: number, devices = gpus(i)) {
  return {
    nodeId,
    domainId,
    hostname: `host-${i}`,
    arch: 'x64',
    os: 'linux',
    cpuCores: 8,
    memoryBytes: 16 * 2 ** 30,
    diskBytes: 100 * 2 ** 30,
    accelerators: devices.length,
    devices,
    labels: { zone: `z${i}` },
    isHead: i === 0,
    agentVersion: 'spec',
  };
}

/** A small wrapper that appends one event at a time with revision `any`. */
function writer(store: EventStore) {
  return (stream: string, type: string, data: unknown) =>
    store.append(stream, [specEvent(type, data)], 'any');
}

/** Phase 1: a domain tree defined before any node, nodes in defined and undefined domains, a quota. */
export async function writeSetup(store: EventStore, ids: ScenarioIds): Promise<void> {
  const put = writer(store);
  await put(domainStream('root'), 'DomainDefined', { domainId: 'root', region: 'eu' });
  await put(domainStream('site-a'), 'DomainDefined', { domainId: 'site-a', parentId: 'root', region: 'eu' });
  const domains = ['site-a', 'site-a', 'site-b', 'edge-z'];
  for (const [i, nodeId] of ids.nodes.entries()) {
    await put(nodeStream(nodeId), 'NodeRegistered', registration(nodeId, domains[i], i));
  }
  await put(quotaStream('team-a'), 'QuotaSet', {
    namespace: 'team-a',
    limits: { cpuMillis: 10_000, workloads: 5 },
  });
}

function submitted(workloadId: string, namespace: string, name: string, replicas: number) {
  const spec = workloadSpecSchema.parse({
    name,
    namespace,
    command: 'sleep',
    resources: RESOURCES,
    replicas,
    restartPolicy: { policy: 'never' },
  });
  return { workloadId, spec, idempotencyKey: null };
}

/** Phase 2: workloads submitted, delegated and placed with capacity reserved; quota consumed; a node moves. */
export async function writePlacements(store: EventStore, ids: ScenarioIds): Promise<void> {
  const put = writer(store);
  const [w1, w2, w3] = ids.workloads;
  const [n0, n1] = ids.nodes;
  await put(workloadStream(w1), 'WorkloadSubmitted', submitted(w1, 'team-a', 'train', 2));
  await put(workloadStream(w2), 'WorkloadSubmitted', submitted(w2, 'team-a', 'serve', 1));
  await put(workloadStream(w3), 'WorkloadSubmitted', submitted(w3, 'team-b', 'batch', 1));
  await put(quotaStream('team-a'), 'QuotaConsumed', {
    namespace: 'team-a',
    workloadId: w1,
    resources: RESOURCES,
  });
  await put(quotaStream('team-a'), 'QuotaConsumed', {
    namespace: 'team-a',
    workloadId: w2,
    resources: RESOURCES,
  });
  const total = { ...RESOURCES, cpuMillis: 3000, memoryBytes: 2 ** 31, accelerators: 2 };
  await put(quotaStream('team-a'), 'QuotaConsumed', {
    namespace: 'team-a',
    workloadId: w1,
    resources: total,
  });
  await put(quotaStream('team-b'), 'QuotaConsumed', {
    namespace: 'team-b',
    workloadId: w3,
    resources: RESOURCES,
  });
  const placements: Array<[string, number, string, number]> = [
    [w1, 0, n0, 0],
    [w1, 1, n1, 1],
    [w2, 0, n0, 2],
    [w3, 0, n1, 3],
  ];
  await put(workloadStream(w1), 'DelegationRejected', {
    workloadId: w1,
    instance: 0,
    attempt: 0,
    scope: 'site-b',
    reason: 'SCHEDULE.NO_FEASIBLE_NODE',
    detail: 'every node filtered',
    candidates: [{ id: ids.nodes[2], kind: 'node', accepted: false, reason: 'FILTER.INSUFFICIENT_CPU' }],
  });
  for (const [workloadId, instance, nodeId, a] of placements) {
    const allocationId = ids.allocations[a];
    for (const [hop, to] of ['site-a', nodeId].entries()) {
      const candidates =
        hop === 0
          ? []
          : [
              { id: nodeId, kind: 'node', accepted: true, score: 75.5 },
              { id: ids.nodes[3], kind: 'node', accepted: false, reason: 'FILTER.NODE_OFFLINE' },
            ];
      await put(workloadStream(workloadId), 'WorkloadDelegated', {
        workloadId,
        instance,
        attempt: 0,
        hop,
        fromScope: hop === 0 ? null : 'site-a',
        to,
        toKind: hop === 0 ? 'domain' : 'node',
        policy: 'least-loaded',
        candidates,
      });
    }
    await put(nodeStream(nodeId), 'CapacityReserved', {
      nodeId,
      allocationId,
      workloadId,
      resources: RESOURCES,
    });
    await put(workloadStream(workloadId), 'AllocationPlaced', {
      workloadId,
      allocationId,
      instance,
      attempt: 0,
      generation: 1,
      nodeId,
      domainId: 'site-a',
      resources: RESOURCES,
    });
  }
  await put(nodeStream(ids.nodes[3]), 'NodeReregistered', registration(ids.nodes[3], 'site-a', 3));
  await put(workloadStream(w3), 'WorkloadUnschedulable', {
    workloadId: w3,
    instance: 0,
    attempt: 1,
    reasons: { 'SCHEDULE.NO_CAPACITY': 1 },
    detail: 'spec',
  });
}

/** Phase 3: allocations run and end, capacity and quota are given back, definitions change, heartbeats arrive. */
export async function writeOutcomes(store: EventStore, ids: ScenarioIds): Promise<void> {
  const put = writer(store);
  const [w1, w2, w3] = ids.workloads;
  const [n0, n1] = ids.nodes;
  const [a0, a1, a2, a3] = ids.allocations;
  const at = new Date().toISOString();
  for (const [w, a, n] of [
    [w1, a0, n0],
    [w1, a1, n1],
    [w2, a2, n0],
  ]) {
    await put(workloadStream(w), 'AllocationStarted', {
      workloadId: w,
      allocationId: a,
      nodeId: n,
      pid: 42,
      startedAt: at,
    });
  }
  await put(workloadStream(w1), 'AllocationCompleted', {
    workloadId: w1,
    allocationId: a0,
    nodeId: n0,
    exitCode: 0,
    endedAt: at,
  });
  await put(nodeStream(n0), 'CapacityReleased', { nodeId: n0, allocationId: a0, reason: 'completed' });
  await put(workloadStream(w2), 'WorkloadStopRequested', { workloadId: w2, reason: 'spec' });
  await put(workloadStream(w2), 'AllocationStopRequested', {
    workloadId: w2,
    allocationId: a2,
    nodeId: n0,
    gracePeriodSeconds: 5,
    reason: 'spec',
  });
  await put(quotaStream('team-a'), 'QuotaReleased', {
    namespace: 'team-a',
    workloadId: w2,
    resources: RESOURCES,
    reason: 'stopped',
  });
  await put(workloadStream(w3), 'WorkloadDeleted', { workloadId: w3, reason: 'spec' });
  await put(workloadStream(w3), 'AllocationLost', {
    workloadId: w3,
    allocationId: a3,
    nodeId: n1,
    reason: 'spec',
    lostAt: at,
  });
  await put(nodeStream(n1), 'CapacityReleased', { nodeId: n1, allocationId: a3, reason: 'lost' });
  await put(domainStream('site-b'), 'DomainDefined', {
    domainId: 'site-b',
    parentId: 'root',
    policy: 'bin-pack',
  });
  await put(domainStream('site-a'), 'DomainUpdated', {
    domainId: 'site-a',
    parentId: 'root',
    region: 'eu-west',
    labels: { tier: 'gold' },
    policy: 'spread',
    headNodeId: n0,
  });
  await put(heartbeatStream(n0), 'NodeHeartbeatRecorded', {
    nodeId: n0,
    seq: 1,
    sentAt: at,
    runningAllocations: [],
    usage: { cpuUsage: 0.25, memoryUsedBytes: 2 ** 30, diskUsedBytes: 2 ** 30 },
  });
  const n2 = ids.nodes[2];
  await put(nodeStream(n2), 'NodeReregistered', registration(n2, 'site-b', 2, gpus(1, 1)));
  for (const seq of [1, 2]) {
    await put(heartbeatStream(n1), 'NodeHeartbeatRecorded', {
      nodeId: n1,
      seq,
      sentAt: at,
      runningAllocations: [],
      usage: { cpuUsage: 0.5, memoryUsedBytes: 2 ** 30, diskUsedBytes: 2 ** 30 },
      devices: [
        { index: 0, vendor: 'nvidia', utilization: seq / 4, memoryUsedBytes: seq * 2 ** 30, health: 90 },
      ],
    });
  }
}
