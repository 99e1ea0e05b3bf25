import { SnapshotAtDecision, buildChain, decisionBasis, explainDecision } from '@hcn/audit';
import {
  DeviceGrant,
  RecordedEvent,
  WorkloadSpec,
  nodeStream,
  workloadSpecSchema,
  workloadStream,
} from '@hcn/contracts';
import { WAITING_INSTANCE, foldRecorded, nodeDecider, workloadDecider } from '@hcn/domain';
import { MemoryEventStore } from '@hcn/eventstore';
import { NODE_EXCLUDED, decide, mulberry32 } from '@hcn/scheduling';
import { CommandContext, toNewEvents } from '@hcn/commands';
import { CLUSTER_EVENT_TYPES, ClusterFold } from '@hcn/cluster';
import { ClusterView } from '../../../scheduling/cluster-view';
import { allocationIdFor, toDecisionRecord } from '../../../scheduling/decision-record';

const POLICIES = ['random', 'least-loaded', 'bin-pack', 'spread', 'round-robin', 'locality'] as const;
const REGIONS = ['eu', 'us', 'ap'];
const GiB = 2 ** 30;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** A hub that decides on a caught-up ClusterView and records decisions exactly like PlacementService. */
class SimulatedHub {
  readonly store = new MemoryEventStore();
  readonly view = new ClusterView(this.store);
  readonly domains: string[] = [];
  readonly nodes: string[] = [];
  private seen: RecordedEvent['position'] | undefined;
  /** The sample limit decisions are taken under (undefined: the scheduler's default). */
  sampleLimit: number | undefined;
  /** Best scored verdicts each record keeps. */
  topK = 5;
  private ids = 1;
  private clock = Date.UTC(2026, 10, 1);

  constructor(readonly rand: () => number) {}

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rand() * list.length)];
  }

  context(): CommandContext {
    const id = uuid(this.ids++);
    this.clock += 1000;
    return {
      correlationId: id,
      causationId: id,
      actor: { kind: 'system', id: 'spec' },
      now: new Date(this.clock),
    };
  }

  async append(stream: string, events: Array<{ type: string; data: unknown }>): Promise<void> {
    if (events.length === 0) return;
    await this.store.append(stream, toNewEvents(events, this.context()), 'any');
    const fresh = await this.store.readAll({ after: this.seen });
    for (const e of fresh) if (CLUSTER_EVENT_TYPES.includes(e.type)) this.view.apply(e);
    this.seen = fresh[fresh.length - 1]?.position ?? this.seen;
  }

  async nodeCommand(nodeId: string, command: Parameters<typeof nodeDecider.decide>[0]): Promise<void> {
    const state = foldRecorded(nodeDecider, await this.store.readStream(nodeStream(nodeId)));
    await this.append(nodeStream(nodeId), nodeDecider.decide(command, state));
  }
}

/** `n` A100-80G devices, the first two linked by NVLink. */
function gpus(n: number) {
  return Array.from({ length: n }, (_, index) => ({
    index,
    vendor: 'nvidia' as const,
    model: 'A100-80G',
    memoryBytes: 80 * GiB,
    numaNode: null,
    health: 100,
    interconnect:
      index < 2 && n > 1 ? [{ peer: 1 - index, kind: 'nvlink' as const, bandwidthGBps: 600 }] : [],
  }));
}

async function buildFleet(hub: SimulatedHub): Promise<void> {
  const roots = 1 + Math.floor(hub.rand() * 2);
  for (let i = 0; i < roots + 2 + Math.floor(hub.rand() * 5); i++) {
    const domainId = `d${i}`;
    const parentId = i < roots ? null : hub.pick(hub.domains);
    const region = hub.rand() < 0.5 ? hub.pick(REGIONS) : null;
    hub.domains.push(domainId);
    const definition = {
      domainId,
      parentId,
      region,
      labels: {},
      policy: hub.pick(POLICIES),
      headNodeId: null,
    };
    await hub.append(`domain-${domainId}`, [{ type: 'DomainDefined', data: definition }]);
  }
  for (let i = 0; i < 4 + Math.floor(hub.rand() * 16); i++) {
    const nodeId = uuid(100_000 + i);
    hub.nodes.push(nodeId);
    const cpuCores = 1 + Math.floor(hub.rand() * 16);
    const devices = hub.rand() < 0.5 ? gpus(1 + Math.floor(hub.rand() * 4)) : [];
    const registration = {
      nodeId,
      domainId: hub.rand() < 0.05 ? 'undefined-site' : hub.pick(hub.domains),
      hostname: `n${i}`,
      arch: 'x64',
      os: 'linux',
      cpuCores,
      memoryBytes: cpuCores * 4 * GiB,
      diskBytes: 0,
      accelerators: devices.length,
      devices,
      labels: { gpu: hub.pick(['a100', 'v100']) },
      isHead: false,
      agentVersion: 'spec',
    };
    await hub.nodeCommand(nodeId, { type: 'RegisterNode', registration });
  }
}

function randomSpec(hub: SimulatedHub, i: number): WorkloadSpec {
  const r = hub.rand;
  const wantsDevices = r() < 0.3;
  const deviceCount = 1 + Math.floor(r() * 2);
  return workloadSpecSchema.parse({
    name: `w${i}`,
    command: 'true',
    resources: {
      cpuMillis: 250 * (1 + Math.floor(r() * 16)),
      memoryBytes: Math.floor(r() * 8) * GiB,
      accelerators: wantsDevices ? deviceCount : r() < 0.2 ? 1 : 0,
    },
    ...(wantsDevices ? { devices: { count: deviceCount } } : {}),
    restartPolicy: { policy: r() < 0.5 ? 'always' : 'never' },
    constraints: {
      labels: r() < 0.3 ? [{ key: 'gpu', op: '=', value: hub.pick(['a100', 'v100']) }] : [],
      regions: { affinity: r() < 0.2 ? [hub.pick(REGIONS)] : [], antiAffinity: [] },
      nodeBlacklist: r() < 0.2 ? [hub.pick(hub.nodes)] : [],
      preferDomains: r() < 0.3 ? [hub.pick(hub.domains)] : [],
    },
  });
}

/** Decides and records one instance like PlacementService, sometimes refusing the reservation (stale state). */
async function place(hub: SimulatedHub, workloadId: string, spec: WorkloadSpec): Promise<void> {
  const stream = workloadStream(workloadId);
  const state = foldRecorded(workloadDecider, await hub.store.readStream(stream));
  const instance = state.instances[0];
  if (!instance || !WAITING_INSTANCE.has(instance.status)) return;
  const allocationId = allocationIdFor(workloadId, 0, instance.attempt);
  const excluded: string[] = [];
  for (;;) {
    const request = {
      workloadId,
      instance: 0,
      resources: spec.resources,
      constraints: spec.constraints,
      ...(spec.devices ? { devices: spec.devices } : {}),
    };
    const sampled = hub.sampleLimit === undefined ? {} : { sampleLimit: hub.sampleLimit };
    const basis = hub.view.basis();
    const decision = decide(hub.view.schedulingIndex(), { ...request, excludeNodes: excluded, ...sampled });
    if (decision.outcome === 'placed') {
      if (hub.rand() < 0.15 && excluded.length < 2) {
        excluded.push(decision.nodeId);
        continue;
      }
      const { nodeId } = decision;
      const grants = decision.devices?.grants as DeviceGrant[] | undefined;
      await hub.nodeCommand(nodeId, {
        type: 'ReserveCapacity',
        nodeId,
        allocationId,
        workloadId,
        resources: spec.resources,
        ...(grants?.length ? { devices: grants } : {}),
      });
    }
    const record = toDecisionRecord(instance, decision, allocationId, basis, hub.topK);
    await hub.append(stream, workloadDecider.decide({ type: 'RecordDecision', decision: record }, state));
    return;
  }
}

/** What the saga does: allocations on offline nodes are lost (restarted by policy), waiting instances placed. */
async function sagaPass(hub: SimulatedHub, workloads: ReadonlyMap<string, WorkloadSpec>): Promise<void> {
  for (const [workloadId, spec] of workloads) {
    const stream = workloadStream(workloadId);
    const state = foldRecorded(workloadDecider, await hub.store.readStream(stream));
    for (const a of Object.values(state.allocations)) {
      if (a.status !== 'placed' || hub.view.node(a.nodeId)?.status !== 'offline') continue;
      const command = {
        type: 'MarkLost' as const,
        allocationId: a.allocationId,
        reason: 'node offline',
        at: new Date().toISOString(),
      };
      const lost = foldRecorded(workloadDecider, await hub.store.readStream(stream));
      await hub.append(stream, workloadDecider.decide(command, lost));
      await hub.nodeCommand(a.nodeId, {
        type: 'ReleaseCapacity',
        nodeId: a.nodeId,
        allocationId: a.allocationId,
        reason: 'lost',
      });
    }
    await place(hub, workloadId, spec);
  }
}

async function churn(hub: SimulatedHub): Promise<void> {
  const nodeId = hub.pick(hub.nodes);
  const roll = hub.rand();
  if (roll < 0.15)
    await hub.nodeCommand(nodeId, {
      type: 'CheckLiveness',
      nodeId,
      now: new Date(Date.UTC(2030, 0)).toISOString(),
      ttlSeconds: 1,
      lastSeenAt: null,
    });
  else if (roll < 0.3)
    await hub.nodeCommand(nodeId, { type: 'ObserveHeartbeat', nodeId, seenAt: new Date().toISOString() });
  else if (roll < 0.38) await hub.nodeCommand(nodeId, { type: 'RequestDrain', nodeId, reason: 'spec' });
  else if (roll < 0.5)
    await hub.nodeCommand(nodeId, {
      type: 'ChangeLabels',
      nodeId,
      labels: { gpu: hub.pick(['a100', 'v100']) },
    });
  else if (roll < 0.7) {
    const state = foldRecorded(nodeDecider, await hub.store.readStream(nodeStream(nodeId)));
    const [allocationId] = state.reservations.keys();
    if (allocationId)
      await hub.nodeCommand(nodeId, { type: 'ReleaseCapacity', nodeId, allocationId, reason: 'spec' });
  }
}

describe('decision replay equals the recorded decision (random fleets and workloads)', () => {
  const seen = {
    placed: 0,
    unschedulable: 0,
    excluded: 0,
    rejections: 0,
    retries: 0,
    reschedules: 0,
    devices: 0,
    sampled: 0,
    compacted: 0,
  };
  afterAll(() => {
    // The fleets must exercise every path the replay has to reproduce.
    for (const [path, n] of Object.entries(seen)) expect([path, n > 5]).toEqual([path, true]);
    console.info(`decision replay paths exercised: ${JSON.stringify(seen)}`);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('fleet seed %i', async (seed) => {
    const hub = new SimulatedHub(mulberry32(seed * 7919));
    // odd seeds sample every scope of more than 3 members; the records keep 1 to 3 best verdicts
    hub.sampleLimit = seed % 2 === 1 ? 3 : undefined;
    hub.topK = 1 + (seed % 3);
    await buildFleet(hub);
    const workloads = new Map<string, WorkloadSpec>();
    for (let i = 0; i < 25; i++) {
      const workloadId = uuid(200_000 + seed * 1000 + i);
      const spec = randomSpec(hub, i);
      await hub.append(workloadStream(workloadId), [
        { type: 'WorkloadSubmitted', data: { workloadId, spec, idempotencyKey: null } },
      ]);
      workloads.set(workloadId, spec);
      await place(hub, workloadId, spec);
      await churn(hub);
      await churn(hub);
      await sagaPass(hub, workloads);
    }
    let decisions = 0;
    for (const workloadId of workloads.keys()) {
      const events = await hub.store.readStream(workloadStream(workloadId));
      for (const d of buildChain(events).decisions) {
        const replay = await explainDecision(
          hub.store,
          events,
          { decision: d.index },
          {
            fold: new ClusterFold(),
            eventTypes: CLUSTER_EVENT_TYPES,
          },
        );
        expect({ workloadId, differences: replay.differences }).toEqual({ workloadId, differences: [] });
        decisions++;
        seen[d.outcome.kind]++;
        if (d.rejections.length > 0) seen.rejections++;
        if (d.trigger === 'retry') seen.retries++;
        if (d.outcome.kind === 'placed' && d.outcome.devices) seen.devices++;
        if (d.trigger === 'reschedule-after-node-loss') seen.reschedules++;
        const scopes = [...d.hops, ...d.rejections];
        if (scopes.some((x) => (x.judging?.judged ?? 0) < (x.judging?.members ?? 0))) seen.sampled++;
        if (scopes.some((x) => x.candidates.length < (x.judging?.judged ?? 0))) seen.compacted++;
        const derived = [...replay.derived.hops, ...replay.derived.rejections];
        expect(derived.map((x) => x.candidates.length)).toEqual(scopes.map((x) => x.judging?.judged));
        const verdicts = scopes.flatMap((x) => x.candidates);
        if (verdicts.some((c) => c.reason === NODE_EXCLUDED)) seen.excluded++;
      }
    }
    expect(decisions).toBeGreaterThanOrEqual(25);
  });

  it('given a record that differs from what the scheduler does, then the replay says where', async () => {
    const hub = new SimulatedHub(mulberry32(42));
    await buildFleet(hub);
    const workloadId = uuid(300_000);
    const spec = randomSpec(hub, 0);
    await hub.append(workloadStream(workloadId), [
      { type: 'WorkloadSubmitted', data: { workloadId, spec, idempotencyKey: null } },
    ]);
    await place(hub, workloadId, spec);
    const events = await hub.store.readStream(workloadStream(workloadId));
    const basis = decisionBasis(events, { decision: 0 });
    const record = basis.decision.record!;
    const rejection = { scope: 'x', reason: 'FORGED', detail: '', members: 0, judged: 0, kept: [] };
    const forged = {
      ...basis,
      decision: {
        ...basis.decision,
        record: { ...record, rejections: [...(record.rejections ?? []), rejection] },
      },
    };
    const at = new SnapshotAtDecision(forged, new ClusterFold());
    for (const e of await hub.store.readAll())
      if (CLUSTER_EVENT_TYPES.includes(e.type) && !at.accept(e)) break;
    const replay = at.replay();
    expect(replay.matches).toBe(false);
    expect(replay.differences.join('\n')).toContain('.rejections');
  });
});
