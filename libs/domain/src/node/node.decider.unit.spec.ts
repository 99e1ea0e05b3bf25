import { DomainError } from '../errors';
import { specFor } from '../testing';
import type { NodeEvent } from './node.commands';
import { nodeDecider } from './node.decider';

const nodeId = '6f1c2f8e-9a55-4c59-8b9f-3f7c1b2d4e5a';
const registration = {
  nodeId,
  domainId: 'site-a',
  hostname: 'gpu-01',
  arch: 'x64',
  os: 'linux',
  cpuCores: 32,
  memoryBytes: 128 * 2 ** 30,
  diskBytes: 2 * 2 ** 40,
  accelerators: 0,
  devices: [],
  labels: { rack: 'r1' },
  isHead: false,
  agentVersion: '0.1.0',
};
const registered: NodeEvent = { type: 'NodeRegistered', data: registration };
const wentOffline: NodeEvent = {
  type: 'NodeWentOffline',
  data: { nodeId, lastSeenAt: '2026-11-22T00:00:00.000Z', ttlSeconds: 15 },
};
const given = specFor(nodeDecider);

function errorCode(result: ReturnType<ReturnType<typeof given>['when']>): string | undefined {
  return 'error' in result && result.error instanceof DomainError ? result.error.code : undefined;
}

describe('node decider', () => {
  describe('RegisterNode', () => {
    it('registers an unknown node', () => {
      expect(given([]).when({ type: 'RegisterNode', registration })).toEqual({ events: [registered] });
    });
    it('is idempotent for the same registration of an online node', () => {
      expect(given([registered]).when({ type: 'RegisterNode', registration })).toEqual({ events: [] });
    });
    it('re-registers when resources changed', () => {
      const bigger = { ...registration, memoryBytes: registration.memoryBytes * 2 };
      expect(given([registered]).when({ type: 'RegisterNode', registration: bigger })).toEqual({
        events: [{ type: 'NodeReregistered', data: bigger }],
      });
    });
    it('re-registers an offline node with the same registration (agent restart)', () => {
      expect(given([registered, wentOffline]).when({ type: 'RegisterNode', registration })).toEqual({
        events: [{ type: 'NodeReregistered', data: registration }],
      });
    });
  });

  describe('liveness', () => {
    const check = (lastSeenAt: string | null, now: string) =>
      ({ type: 'CheckLiveness', nodeId, now, ttlSeconds: 15, lastSeenAt }) as const;
    it('marks an online node offline after the TTL without heartbeat', () => {
      expect(given([registered]).when(check('2026-11-22T00:00:00.000Z', '2026-11-22T00:00:16.000Z'))).toEqual(
        {
          events: [wentOffline],
        },
      );
    });
    it('keeps a node online within the TTL', () => {
      expect(given([registered]).when(check('2026-11-22T00:00:00.000Z', '2026-11-22T00:00:15.000Z'))).toEqual(
        { events: [] },
      );
    });
    it('does not mark an offline node offline twice', () => {
      expect(given([registered, wentOffline]).when(check(null, '2026-11-22T01:00:00.000Z'))).toEqual({
        events: [],
      });
    });
    it('brings an offline node back online on its next heartbeat, and only then', () => {
      const seen = { type: 'ObserveHeartbeat', nodeId, seenAt: '2026-11-22T00:01:00.000Z' } as const;
      expect(given([registered, wentOffline]).when(seen)).toEqual({
        events: [{ type: 'NodeCameOnline', data: { nodeId, seenAt: '2026-11-22T00:01:00.000Z' } }],
      });
      expect(given([registered]).when(seen)).toEqual({ events: [] });
    });
    it('refuses heartbeats of an unknown node', () => {
      expect(
        errorCode(given([]).when({ type: 'ObserveHeartbeat', nodeId, seenAt: '2026-11-22T00:00:00.000Z' })),
      ).toBe('NODE.NOT_FOUND');
    });
  });

  describe('operator commands', () => {
    it('drains once', () => {
      const drain = { type: 'RequestDrain', nodeId, reason: 'maintenance' } as const;
      const drained: NodeEvent = { type: 'NodeDrainRequested', data: { nodeId, reason: 'maintenance' } };
      expect(given([registered]).when(drain)).toEqual({ events: [drained] });
      expect(given([registered, drained]).when(drain)).toEqual({ events: [] });
    });
    it('requests a stop', () => {
      expect(given([registered]).when({ type: 'RequestStop', nodeId, reason: 'decommission' })).toEqual({
        events: [{ type: 'NodeStopRequested', data: { nodeId, reason: 'decommission' } }],
      });
    });
    it('changes labels only when they differ', () => {
      expect(given([registered]).when({ type: 'ChangeLabels', nodeId, labels: { rack: 'r1' } })).toEqual({
        events: [],
      });
      expect(given([registered]).when({ type: 'ChangeLabels', nodeId, labels: { rack: 'r2' } })).toEqual({
        events: [{ type: 'NodeLabelsChanged', data: { nodeId, labels: { rack: 'r2' } } }],
      });
    });
    it.each([
      ['RequestDrain', { type: 'RequestDrain', nodeId, reason: '' }],
      ['RequestStop', { type: 'RequestStop', nodeId, reason: '' }],
      ['ChangeLabels', { type: 'ChangeLabels', nodeId, labels: {} }],
      ['Deregister', { type: 'Deregister', nodeId, reason: '' }],
    ] as const)('refuses %s on an unknown node with NODE.NOT_FOUND', (_, command) => {
      expect(errorCode(given([]).when(command))).toBe('NODE.NOT_FOUND');
    });
    it('refuses commands on a deregistered node', () => {
      const gone: NodeEvent = { type: 'NodeDeregistered', data: { nodeId, reason: 'retired' } };
      expect(errorCode(given([registered, gone]).when({ type: 'RequestDrain', nodeId, reason: '' }))).toBe(
        'NODE.DEREGISTERED',
      );
    });
  });
});

describe('node capacity', () => {
  const A1 = '00000000-0000-4000-8000-0000000000a1';
  const A2 = '00000000-0000-4000-8000-0000000000a2';
  const W = '00000000-0000-4000-8000-000000000001';
  const need = (cpuMillis: number) => ({ cpuMillis, memoryBytes: 2 ** 30, accelerators: 0 });
  const reserve = (allocationId: string, cpuMillis: number) =>
    ({ type: 'ReserveCapacity', nodeId, allocationId, workloadId: W, resources: need(cpuMillis) }) as const;
  const reserved = (allocationId: string, cpuMillis: number): NodeEvent => ({
    type: 'CapacityReserved',
    data: { nodeId, allocationId, workloadId: W, resources: need(cpuMillis) },
  });
  const drained: NodeEvent = { type: 'NodeDrainRequested', data: { nodeId, reason: 'x' } };

  it.each([
    ['fits on an empty node', [registered], reserve(A1, 32000), [reserved(A1, 32000)], undefined],
    [
      'is idempotent on the allocation id',
      [registered, reserved(A1, 32000)],
      reserve(A1, 32000),
      [],
      undefined,
    ],
    [
      'refuses what no longer fits',
      [registered, reserved(A1, 30000)],
      reserve(A2, 2001),
      undefined,
      'NODE.INSUFFICIENT_CAPACITY',
    ],
    [
      'fits again after a release',
      [
        registered,
        reserved(A1, 30000),
        { type: 'CapacityReleased', data: { nodeId, allocationId: A1, reason: 'done' } },
      ],
      reserve(A2, 32000),
      [reserved(A2, 32000)],
      undefined,
    ],
    ['refuses an offline node', [registered, wentOffline], reserve(A1, 1), undefined, 'NODE.OFFLINE'],
    ['refuses a draining node', [registered, drained], reserve(A1, 1), undefined, 'NODE.DRAINING'],
    ['refuses an unknown node', [], reserve(A1, 1), undefined, 'NODE.NOT_FOUND'],
  ])('reserve %s', (_name, history, command, events, code) => {
    const result = given(history as NodeEvent[]).when(command);
    if (code) expect(errorCode(result)).toBe(code);
    else expect(result).toEqual({ events });
  });

  it('releases only what is reserved', () => {
    const release = { type: 'ReleaseCapacity', nodeId, allocationId: A1, reason: 'ended' } as const;
    expect(given([registered, reserved(A1, 1)]).when(release)).toEqual({
      events: [{ type: 'CapacityReleased', data: { nodeId, allocationId: A1, reason: 'ended' } }],
    });
    expect(given([registered]).when(release)).toEqual({ events: [] });
  });

  it('keeps the reserved total equal to the sum of the reservations through 600 reserves and releases', () => {
    let state = nodeDecider.evolve(nodeDecider.initialState, registered);
    const live = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      const allocationId = `alloc-${i % 250}`;
      const event: NodeEvent = live.has(allocationId)
        ? { type: 'CapacityReleased', data: { nodeId, allocationId, reason: 'ended' } }
        : reserved(allocationId, 1 + (i % 7));
      if (event.type === 'CapacityReleased') live.delete(allocationId);
      else live.set(allocationId, 1 + (i % 7));
      state = nodeDecider.evolve(state, event);
      state = nodeDecider.evolve(state, event); // a repeated event changes nothing
    }
    const cpu = [...live.values()].reduce((a, b) => a + b, 0);
    expect(state.reserved).toEqual({ cpuMillis: cpu, memoryBytes: live.size * 2 ** 30, accelerators: 0 });
    expect(state.reservations.size).toBe(live.size);
    expect(new Set(state.reservations.keys())).toEqual(new Set(live.keys()));
    expect(() => nodeDecider.decide(reserve('alloc-new', 32000 - cpu + 1), state)).toThrow(
      expect.objectContaining({ code: 'NODE.INSUFFICIENT_CAPACITY' }),
    );
    expect(nodeDecider.decide(reserve('alloc-new', 32000 - cpu), state)).toHaveLength(1);
  });
});

describe('node device grants', () => {
  const GiB = 2 ** 30;
  const W = '00000000-0000-4000-8000-000000000001';
  const alloc = (n: number) => `00000000-0000-4000-8000-0000000000b${n}`;
  const gpu = (index: number) => ({
    index,
    vendor: 'nvidia' as const,
    model: 'NVIDIA A100-SXM4-80GB',
    memoryBytes: 80 * GiB,
    numaNode: 0,
    health: 100,
    interconnect: [],
  });
  const gpuNode: NodeEvent = {
    type: 'NodeRegistered',
    data: { ...registration, accelerators: 2, devices: [gpu(0), gpu(1)] },
  };
  type Grant = { index: number; vendor: 'nvidia'; sliceMemoryBytes?: number };
  const amounts = (accelerators: number) => ({ cpuMillis: 1000, memoryBytes: GiB, accelerators });
  const reserve = (n: number, devices: Grant[]) =>
    ({
      type: 'ReserveCapacity',
      nodeId,
      allocationId: alloc(n),
      workloadId: W,
      resources: amounts(devices.filter((d) => d.sliceMemoryBytes === undefined).length),
      devices,
    }) as const;
  const reserved = (n: number, devices: Grant[]): NodeEvent => {
    const { type: _t, ...data } = reserve(n, devices);
    return { type: 'CapacityReserved', data: { ...data, devices: [...devices] } };
  };
  const whole = (index: number): Grant => ({ index, vendor: 'nvidia' });
  const slice = (index: number, gib: number): Grant => ({
    index,
    vendor: 'nvidia',
    sliceMemoryBytes: gib * GiB,
  });

  it.each<[string, NodeEvent[], ReturnType<typeof reserve>, string | undefined]>([
    [
      'given a free device, when it is reserved whole, then it is granted',
      [gpuNode],
      reserve(1, [whole(0)]),
      undefined,
    ],
    [
      'given a device held whole, when it is reserved again, then NODE.DEVICE_BUSY',
      [gpuNode, reserved(1, [whole(0)])],
      reserve(2, [whole(0)]),
      'NODE.DEVICE_BUSY',
    ],
    [
      'given a sliced device, when it is reserved whole, then NODE.DEVICE_BUSY',
      [gpuNode, reserved(1, [slice(0, 10)])],
      reserve(2, [whole(0)]),
      'NODE.DEVICE_BUSY',
    ],
    [
      'given 70 GiB of slices, when 10 more are asked, then they fit',
      [gpuNode, reserved(1, [slice(1, 70)])],
      reserve(2, [slice(1, 10)]),
      undefined,
    ],
    [
      'given 70 GiB of slices, when 11 more are asked, then NODE.DEVICE_BUSY',
      [gpuNode, reserved(1, [slice(1, 70)])],
      reserve(2, [slice(1, 11)]),
      'NODE.DEVICE_BUSY',
    ],
    [
      'given two devices, when one grant names a device twice, then NODE.DEVICE_BUSY',
      [gpuNode],
      reserve(1, [whole(1), whole(1)]),
      'NODE.DEVICE_BUSY',
    ],
    [
      'given two devices, when device 7 is asked, then NODE.DEVICE_UNKNOWN',
      [gpuNode],
      reserve(1, [whole(7)]),
      'NODE.DEVICE_UNKNOWN',
    ],
    [
      'given a device released, when it is reserved again, then it is granted',
      [
        gpuNode,
        reserved(1, [whole(0)]),
        { type: 'CapacityReleased', data: { nodeId, allocationId: alloc(1), reason: 'done' } },
      ],
      reserve(2, [whole(0)]),
      undefined,
    ],
  ])('%s', (_name, history, command, code) => {
    const result = given(history).when(command);
    if (code) expect(errorCode(result)).toBe(code);
    else
      expect(result).toEqual({
        events: [reserved(Number(command.allocationId.at(-1)), [...command.devices])],
      });
  });
});

describe('device health from heartbeats', () => {
  const gpuNode: NodeEvent = {
    type: 'NodeRegistered',
    data: {
      ...registration,
      accelerators: 1,
      devices: [
        {
          index: 0,
          vendor: 'nvidia',
          model: 'NVIDIA A100-SXM4-80GB',
          numaNode: 0,
          health: 100,
          interconnect: [],
        },
      ],
    },
  };
  const observe = (health: number, index = 0) =>
    ({ type: 'ObserveDeviceHealth', nodeId, devices: [{ vendor: 'nvidia', index, health }] }) as const;
  const changed = (health: number): NodeEvent => ({
    type: 'NodeDeviceHealthChanged',
    data: { nodeId, devices: [{ vendor: 'nvidia', index: 0, health }] },
  });

  it.each<[string, NodeEvent[], ReturnType<typeof observe>, NodeEvent[]]>([
    ['given 100, when 95 is seen, then nothing (a wobble)', [gpuNode], observe(95), []],
    ['given 100, when 85 is seen, then recorded (10 points or more)', [gpuNode], observe(85), [changed(85)]],
    [
      'given 55, when 49 is seen, then recorded (crosses the threshold)',
      [gpuNode, changed(55)],
      observe(49),
      [changed(49)],
    ],
    ['given 20, when 25 is seen, then nothing', [gpuNode, changed(20)], observe(25), []],
    ['given an unknown device, when its health is seen, then nothing', [gpuNode], observe(10, 7), []],
    [
      "given a re-registration after a change, when 100 is seen, then nothing (health is the registration's again)",
      [gpuNode, changed(20), gpuNode],
      observe(100),
      [],
    ],
  ])('%s', (_name, history, command, events) => {
    expect(given(history).when(command)).toEqual({ events });
  });
});
