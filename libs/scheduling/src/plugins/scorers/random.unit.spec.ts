import { compiled, domain, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import type { NodeState } from '../../tree/states';
import { randomScorer } from './random';

describe('random scorer (seeded by workload id and instance)', () => {
  const ids = Array.from({ length: 20 }, (_, i) => `n${String(i).padStart(2, '0')}`);
  const index = indexOf(
    [domain('s', null)],
    ids.map((id) => node(id, 's')),
  );
  const nodes = ids.map((id) => nodeIn(index, id));
  const scores = (workloadId: string, instance: number, candidates: NodeState[] = nodes) => {
    const out = new Float64Array(32);
    randomScorer.score(
      candidates,
      { request: compiled(index, request({ workloadId, instance })), scope: null },
      out,
    );
    return new Map(candidates.map((c, i) => [c.id, out[i]]));
  };

  it.each<[string, string, number, string, number, boolean]>([
    ['same workload and instance', 'w-1', 0, 'w-1', 0, true],
    ['another instance', 'w-1', 0, 'w-1', 1, false],
    ['another workload', 'w-1', 0, 'w-2', 0, false],
  ])('%s → same scores: %s', (...[_, w1, i1, w2, i2, same]) => {
    const a = [...scores(w1, i1).values()];
    const b = [...scores(w2, i2).values()];
    if (same) expect(b).toEqual(a);
    else expect(b).not.toEqual(a);
  });

  it('stays in [0, 100] and does not depend on the order of the candidates', () => {
    const forward = scores('w-7', 3);
    const backward = scores('w-7', 3, [...nodes].reverse());
    expect(backward).toEqual(forward);
    for (const s of forward.values()) expect(s >= 0 && s < 100).toBe(true);
  });

  it('puts each node first for some workload', () => {
    const winners = new Set<string>();
    for (let w = 0; w < 400; w++) {
      const s = [...scores(`w-${w}`, 0)];
      winners.add(s.reduce((best, cur) => (cur[1] > best[1] ? cur : best))[0]);
    }
    expect(winners.size).toBe(ids.length);
  });
});
