import { specFor } from '../testing';
import { QuotaEvent, quotaDecider } from './quota.decider';

const W1 = '00000000-0000-4000-8000-000000000001';
const W2 = '00000000-0000-4000-8000-000000000002';
const given = specFor(quotaDecider);
const amounts = (
  cpuMillis: number,
  devices: Partial<{ accelerators: number; acceleratorMemoryBytes: number; computeUnits: number }> = {},
) => ({
  cpuMillis,
  memoryBytes: 0,
  accelerators: 0,
  acceleratorMemoryBytes: 0,
  computeUnits: 0,
  ...devices,
});
const set: QuotaEvent = {
  type: 'QuotaSet',
  data: { namespace: 'team-a', limits: { cpuMillis: 1000, workloads: 2 } },
};
const held = (workloadId: string, cpuMillis: number): QuotaEvent => ({
  type: 'QuotaConsumed',
  data: { namespace: 'team-a', workloadId, resources: amounts(cpuMillis) },
});
const hold = (workloadId: string, cpuMillis: number) =>
  ({
    type: 'Hold',
    namespace: 'team-a',
    workloadId,
    resources: amounts(cpuMillis),
  }) as const;

describe('quota decider', () => {
  it.each([
    ['within the limit', [set], hold(W1, 600), ['QuotaConsumed']],
    ['without any limits', [], hold(W1, 10 ** 6), ['QuotaConsumed']],
    ['the same holding again', [set, held(W1, 600)], hold(W1, 600), []],
    [
      'a larger holding of the same workload that still fits',
      [set, held(W1, 600)],
      hold(W1, 1000),
      ['QuotaConsumed'],
    ],
  ])('admits %s', (_name, history, command, types) => {
    const result = given(history as QuotaEvent[]).when(command);
    expect('events' in result && result.events.map((e) => e.type)).toEqual(types);
  });

  it.each([
    ['over the cpu limit', [set, held(W1, 600)], hold(W2, 500), 'cpuMillis: 1100 > limit 1000'],
    [
      'over the workload count',
      [set, held(W1, 1), held(W2, 1)],
      hold('00000000-0000-4000-8000-000000000003', 1),
      'workloads: 3 > limit 2',
    ],
  ])('refuses %s with QUOTA.EXCEEDED', (_name, history, command, detail) => {
    const result = given(history as QuotaEvent[]).when(command);
    expect(result).toMatchObject({ error: { code: 'QUOTA.EXCEEDED' } });
    expect(String((result as { error: Error }).error.message)).toContain(detail);
  });

  it('releases what a workload held, once', () => {
    const result = given([set, held(W1, 600)]).when({
      type: 'Release',
      namespace: 'team-a',
      workloadId: W1,
      reason: 'deleted',
    });
    expect(result).toEqual({
      events: [
        {
          type: 'QuotaReleased',
          data: {
            namespace: 'team-a',
            workloadId: W1,
            resources: amounts(600),
            reason: 'deleted',
          },
        },
      ],
    });
    const again = given([set, held(W1, 600), ...('events' in result ? result.events : [])]).when({
      type: 'Release',
      namespace: 'team-a',
      workloadId: W1,
      reason: 'x',
    });
    expect(again).toEqual({ events: [] });
  });

  describe('a batch held as a whole (HoldAll)', () => {
    const W3 = '00000000-0000-4000-8000-000000000003';
    const holdAll = (...holds: Array<[string, number]>) =>
      ({
        type: 'HoldAll',
        namespace: 'team-a',
        holds: holds.map(([workloadId, cpuMillis]) => ({ workloadId, resources: amounts(cpuMillis) })),
      }) as const;

    it('given room for both, when two are held together, then one QuotaConsumed each, in order', () => {
      const result = given([set]).when(holdAll([W1, 400], [W2, 600]));
      expect(
        'events' in result && result.events.map((e) => e.type === 'QuotaConsumed' && e.data.workloadId),
      ).toEqual([W1, W2]);
    });

    it('given room for one more, when two are held together, then QUOTA.EXCEEDED names the one over and nothing is held', () => {
      const result = given([set, held(W1, 300)]).when(holdAll([W2, 300], [W3, 300]));
      expect(result).toMatchObject({ error: { code: 'QUOTA.EXCEEDED', details: { workloadId: W3 } } });
      expect(String((result as { error: Error }).error.message)).toContain('workloads: 3 > limit 2');
    });

    it('given the later holding would cross the cpu limit only on top of the earlier ones, then QUOTA.EXCEEDED', () => {
      const result = given([set]).when(holdAll([W1, 600], [W2, 600]));
      expect(String((result as { error: Error }).error.message)).toContain('cpuMillis: 1200 > limit 1000');
    });

    it('given one of the batch is already held alike, then only the others are consumed', () => {
      const result = given([set, held(W1, 400)]).when(holdAll([W1, 400], [W2, 600]));
      expect(
        'events' in result && result.events.map((e) => e.type === 'QuotaConsumed' && e.data.workloadId),
      ).toEqual([W2]);
    });
  });

  describe('accelerator memory and compute units', () => {
    const GiB = 2 ** 30;
    const deviceLimits: QuotaEvent = {
      type: 'QuotaSet',
      data: { namespace: 'team-a', limits: { acceleratorMemoryBytes: 160 * GiB, computeUnits: 4 } },
    };
    const holdDevices = (workloadId: string, over: Parameters<typeof amounts>[1]) =>
      ({ type: 'Hold', namespace: 'team-a', workloadId, resources: amounts(100, over) }) as const;

    it.each([
      [
        'given room, when 2 × 80 GiB and 2 units are held, then admitted',
        [deviceLimits],
        holdDevices(W1, { accelerators: 2, acceleratorMemoryBytes: 160 * GiB, computeUnits: 2 }),
        undefined,
      ],
      [
        'given 120 GiB held, when 60 GiB more are asked, then QUOTA.EXCEEDED',
        [
          deviceLimits,
          {
            type: 'QuotaConsumed',
            data: {
              namespace: 'team-a',
              workloadId: W1,
              resources: amounts(100, {
                accelerators: 1,
                acceleratorMemoryBytes: 120 * GiB,
                computeUnits: 1,
              }),
            },
          } as QuotaEvent,
        ],
        holdDevices(W2, { accelerators: 1, acceleratorMemoryBytes: 60 * GiB, computeUnits: 1 }),
        'QUOTA.EXCEEDED',
      ],
      [
        'given a units limit, when 5 units are asked, then QUOTA.EXCEEDED',
        [deviceLimits],
        holdDevices(W1, { accelerators: 4, acceleratorMemoryBytes: 64 * GiB, computeUnits: 5 }),
        'QUOTA.EXCEEDED',
      ],
      [
        'given device limits, when devices are asked without naming memory or units, then QUOTA.DEVICE_AMOUNT_UNDECLARED',
        [deviceLimits],
        holdDevices(W1, { accelerators: 1 }),
        'QUOTA.DEVICE_AMOUNT_UNDECLARED',
      ],
      [
        'given device limits, when no devices are asked, then admitted',
        [deviceLimits],
        holdDevices(W1, {}),
        undefined,
      ],
    ])('%s', (_name, history, command, code) => {
      const result = given(history).when(command);
      if (code) expect(result).toMatchObject({ error: { code } });
      else expect('events' in result && result.events.map((e) => e.type)).toEqual(['QuotaConsumed']);
    });
  });

  describe('a default quota for namespaces without limits of their own', () => {
    const byDefault = { cpuMillis: 1000, workloads: 1 };
    const holdWithDefault = (workloadId: string, cpuMillis: number) =>
      ({ ...hold(workloadId, cpuMillis), defaultLimits: byDefault }) as const;

    it('given no QuotaSet, when a holding goes over the default, then QUOTA.EXCEEDED naming the default', () => {
      const result = given([]).when(holdWithDefault(W1, 1500));
      expect(result).toMatchObject({ error: { code: 'QUOTA.EXCEEDED', details: { workloadId: W1 } } });
      expect(String((result as { error: Error }).error.message)).toContain('(the default quota)');
    });

    it('given no QuotaSet, when a batch goes over the default workload count, then QUOTA.EXCEEDED', () => {
      const result = given([]).when({
        type: 'HoldAll',
        namespace: 'team-a',
        holds: [
          { workloadId: W1, resources: amounts(1) },
          { workloadId: W2, resources: amounts(1) },
        ],
        defaultLimits: byDefault,
      });
      expect(result).toMatchObject({ error: { code: 'QUOTA.EXCEEDED', details: { workloadId: W2 } } });
    });

    it.each([
      ['within the default', [] as QuotaEvent[], 900],
      ['over the default but within limits of its own', [set], 1000],
      [
        'over the default under its own empty (unlimited) limits',
        [{ type: 'QuotaSet', data: { namespace: 'team-a', limits: {} } }] as QuotaEvent[],
        10 ** 6,
      ],
    ])('admits a holding %s', (_name, history, cpuMillis) => {
      const result = given(history).when(holdWithDefault(W1, cpuMillis));
      expect('events' in result && result.events.map((e) => e.type)).toEqual(['QuotaConsumed']);
    });
  });
});
