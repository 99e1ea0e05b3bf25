import { specFor } from '../testing';
import { QuotaEvent, quotaDecider } from './quota.decider';

const W1 = '00000000-0000-4000-8000-000000000001';
const W2 = '00000000-0000-4000-8000-000000000002';
const given = specFor(quotaDecider);
const set: QuotaEvent = {
  type: 'QuotaSet',
  data: { namespace: 'team-a', limits: { cpuMillis: 1000, workloads: 2 } },
};
const held = (workloadId: string, cpuMillis: number): QuotaEvent => ({
  type: 'QuotaConsumed',
  data: { namespace: 'team-a', workloadId, resources: { cpuMillis, memoryBytes: 0, accelerators: 0 } },
});
const hold = (workloadId: string, cpuMillis: number) =>
  ({
    type: 'Hold',
    namespace: 'team-a',
    workloadId,
    resources: { cpuMillis, memoryBytes: 0, accelerators: 0 },
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
            resources: { cpuMillis: 600, memoryBytes: 0, accelerators: 0 },
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
});
