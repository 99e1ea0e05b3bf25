import { hcnEventRegistry } from '../index';
import { CompactDecision } from './decision.record';
import { bitsOfRuns, fullDecision, runsOfBits, storedDecision } from './decision.stored';

const workloadId = '00000000-0000-4000-8000-000000000001';
const nodeId = '00000000-0000-4000-8000-0000000000aa';

/** Validates, stores and reads `data` back as the event store does (through JSON). */
function roundTrip(type: string, data: unknown): { stored: unknown; read: unknown; full: unknown } {
  const full = hcnEventRegistry.validate(type, 1, data);
  const stored = JSON.parse(JSON.stringify(hcnEventRegistry.storedForm(type, 1, full)));
  return { stored, read: hcnEventRegistry.validate(type, 1, stored), full };
}

const decision: CompactDecision = {
  hops: [
    { scope: null, policy: 'least-loaded', to: 0, members: 1, judged: 1, kept: [['d', 'global', 99.9]] },
    {
      scope: 'global',
      policy: 'least-loaded',
      to: 1,
      members: 3,
      judged: 3,
      rejected: { 'FILTER.DOMAIN_NO_USABLE_NODE': 1 },
      kept: [
        ['d', 'r0', null, 'FILTER.DOMAIN_NO_USABLE_NODE'],
        ['d', 'r1', 99.5],
        ['d', 'r2', 98],
      ],
    },
    {
      scope: 'r1',
      policy: 'bin-pack',
      to: 0,
      members: 40,
      judged: 12,
      rejected: { 'FILTER.INSUFFICIENT_CPU': 7 },
      kept: [
        ['n', nodeId, 0.5],
        ['n', 'b', null, 'FILTER.INSUFFICIENT_CPU'],
      ],
    },
  ],
  rejections: [
    {
      scope: 'r0',
      reason: 'SCHEDULE.NO_FEASIBLE_NODE',
      detail: 'no node fits',
      members: 2,
      judged: 2,
      rejected: { 'FILTER.INSUFFICIENT_MEMORY': 2 },
      kept: [
        ['n', 'c', null, 'FILTER.INSUFFICIENT_MEMORY'],
        ['n', 'd', null, 'FILTER.INSUFFICIENT_MEMORY'],
      ],
    },
  ],
  topK: 5,
  sampleLimit: 12,
  basis: { at: '10/4', ahead: '0,2-3' },
};

describe('stored forms of events (what the store leaves out, what reads fill back)', () => {
  it('stores a submitted spec without its defaults and reads the full spec back', () => {
    const { stored, read, full } = roundTrip('WorkloadSubmitted', {
      workloadId,
      spec: { name: 'w', command: 'true', resources: { cpuMillis: 100, memoryBytes: 1024 } },
    });
    expect(stored).toEqual({
      workloadId,
      spec: { name: 'w', command: 'true', resources: { cpuMillis: 100, memoryBytes: 1024 } },
    });
    expect(read).toEqual(full);
    expect(read).toMatchObject({
      idempotencyKey: null,
      spec: { namespace: 'default', type: 'process', replicas: 1, priority: 0, stopGraceSeconds: 30 },
    });
  });

  it("keeps a restart policy or runtime that is not its type's default, and reads a service's back", () => {
    const service = {
      name: 's',
      type: 'service',
      image: 'nginx:1',
      ports: [{ name: 'http', containerPort: 80 }],
      resources: { cpuMillis: 100, memoryBytes: 1024 },
    };
    const implied = roundTrip('WorkloadSubmitted', { workloadId, spec: service });
    expect(implied.stored).toMatchObject({ spec: { type: 'service' } });
    expect((implied.stored as { spec: object }).spec).not.toHaveProperty('restartPolicy');
    expect((implied.stored as { spec: object }).spec).not.toHaveProperty('runtime');
    expect(implied.read).toMatchObject({
      spec: { runtime: 'container', restartPolicy: { policy: 'always' } },
    });
    const { image, ...rest } = service;
    void image;
    const given = { ...rest, ports: [{ name: 'http', hostPort: 8080 }], command: 'srv' };
    const spec = { ...given, restartPolicy: { policy: 'never' }, runtime: 'process' };
    const explicit = roundTrip('WorkloadSubmitted', { workloadId, spec });
    expect(explicit.stored).toMatchObject({ spec: { restartPolicy: {} } });
    expect(explicit.read).toEqual(explicit.full);
    expect(explicit.read).toMatchObject({ spec: { restartPolicy: { policy: 'never', maxRetries: 3 } } });
  });

  it('leaves zero accelerator, compute and memory amounts out of reservations and quota', () => {
    const resources = { cpuMillis: 100, memoryBytes: 1024, accelerators: 0 };
    const allocationId = '00000000-0000-4000-8000-000000000002';
    const reserved = roundTrip('CapacityReserved', { nodeId, allocationId, workloadId, resources });
    expect(reserved.stored).toEqual({
      nodeId,
      allocationId,
      workloadId,
      resources: { cpuMillis: 100, memoryBytes: 1024 },
    });
    expect(reserved.read).toEqual(reserved.full);
    const quota = roundTrip('QuotaConsumed', {
      namespace: 'default',
      workloadId,
      resources: { ...resources, accelerators: 2, computeUnits: 0, acceleratorMemoryBytes: 0 },
    });
    expect(quota.stored).toEqual({
      namespace: 'default',
      workloadId,
      resources: { cpuMillis: 100, memoryBytes: 1024, accelerators: 2 },
    });
    expect(quota.read).toEqual(quota.full);
  });

  it('stores a decision without what its hops repeat and reads the same record back', () => {
    const stored = storedDecision(decision);
    expect(stored.hops).toEqual([
      { policy: 'least-loaded', kept: [['global', 99.9]] },
      {
        to: 1,
        kept: [
          ['r0', null, 'FILTER.DOMAIN_NO_USABLE_NODE'],
          ['r1', 99.5],
          ['r2', 98],
        ],
      },
      {
        policy: 'bin-pack',
        members: 40,
        judged: 12,
        rejected: { 'FILTER.INSUFFICIENT_CPU': 7 },
        kept: [
          [nodeId, 0.5],
          ['b', null, 'FILTER.INSUFFICIENT_CPU'],
        ],
      },
    ]);
    const { scope, reason, detail, kept } = decision.rejections![0];
    expect(stored.rejections).toEqual([{ scope, reason, detail, kept }]);
    expect(stored).not.toHaveProperty('topK');
    expect(fullDecision(stored)).toEqual(decision);
  });

  it('reads a decision with a root scope, another top K and counts kept verdicts do not show', () => {
    const other: CompactDecision = {
      ...decision,
      hops: [{ ...decision.hops[1], scope: 'r9', rejected: { 'FILTER.DOMAIN_NO_USABLE_NODE': 4 } }],
      rejections: undefined,
      topK: 3,
    };
    const stored = storedDecision(other);
    expect(stored.hops[0]).toMatchObject({ scope: 'r9', rejected: { 'FILTER.DOMAIN_NO_USABLE_NODE': 4 } });
    // a single hop implies nodes: its domains keep their kind
    expect(stored.hops[0].kept[0]).toEqual(['d', 'r0', null, 'FILTER.DOMAIN_NO_USABLE_NODE']);
    expect(stored.topK).toBe(3);
    expect(fullDecision(stored)).toEqual({ ...other, rejections: undefined });
  });

  it("stores a basis's dense runs as a bit set and short runs as they are", () => {
    const ahead = '0,2,13,15,19-22,25,30-33,36-39,43-44,48,50,52,54,58-60,63-64,67-69,72-73,76-77,80-81';
    const dense = storedDecision({ ...decision, basis: { at: '10/4', ahead } }).basis!;
    expect(dense).toEqual({ at: '10/4', bits: bitsOfRuns(ahead) });
    expect(dense.bits!.length).toBeLessThan(ahead.length / 4);
    expect(runsOfBits(dense.bits!)).toBe(ahead);
    expect(fullDecision(storedDecision({ ...decision, basis: { at: '10/4', ahead } })).basis).toEqual({
      at: '10/4',
      ahead,
    });
    for (const sparse of ['0', '0,40', '0,90000'])
      expect(storedDecision({ ...decision, basis: { at: '1/1', ahead: sparse } }).basis).toEqual({
        at: '1/1',
        ahead: sparse,
      });
  });

  it('stores AllocationPlaced with its decision compact and reads records written in full as they are', () => {
    const data = {
      workloadId,
      allocationId: '00000000-0000-4000-8000-000000000002',
      instance: 0,
      attempt: 0,
      generation: 1,
      nodeId,
      domainId: 'r1',
      resources: { cpuMillis: 100, memoryBytes: 1024, accelerators: 0 },
      decision,
    };
    const { stored, read } = roundTrip('AllocationPlaced', data);
    expect(stored).toMatchObject({ resources: { cpuMillis: 100, memoryBytes: 1024 } });
    const storedDecisionOf = (stored as { decision: { hops: { kept: unknown[] }[] } }).decision;
    expect(storedDecisionOf).not.toHaveProperty('topK');
    // the chosen node is the event's nodeId: stored as ''
    expect(storedDecisionOf.hops[2].kept[0]).toEqual(['', 0.5]);
    expect(read).toEqual(data);
    expect(hcnEventRegistry.validate('AllocationPlaced', 1, JSON.parse(JSON.stringify(data)))).toEqual(data);
  });
});
