import type { CandidateVerdict } from './decision';
import { compactVerdicts } from './compact-verdicts';
import { NODE_BLACKLISTED, NODE_EXCLUDED } from './plugins/reasons';

const ok = (id: string, score: number): CandidateVerdict => ({ id, kind: 'node', accepted: true, score });
const no = (id: string, reason: string): CandidateVerdict => ({ id, kind: 'node', accepted: false, reason });

describe('compactVerdicts: what a record keeps of a scope', () => {
  const verdicts: CandidateVerdict[] = [
    ok('a', 10),
    no('b', 'FILTER.INSUFFICIENT_CPU'),
    ok('c', 90),
    no('d', 'FILTER.INSUFFICIENT_CPU'),
    no('e', 'FILTER.INSUFFICIENT_CPU'),
    ok('f', 50),
    no('g', NODE_EXCLUDED),
    no('h', NODE_EXCLUDED),
    no('i', NODE_EXCLUDED),
    ok('j', 90),
    no('k', NODE_BLACKLISTED),
    no('l', NODE_BLACKLISTED),
    no('m', NODE_BLACKLISTED),
    ok('n', 20),
  ];

  it('given top 2 and a chosen candidate outside them, then it keeps the best two, the choice, examples and counts', () => {
    const compact = compactVerdicts(verdicts, 'a', 2);
    expect(compact.judged).toBe(14);
    expect(compact.rejectedCounts).toEqual({
      'FILTER.INSUFFICIENT_CPU': 3,
      [NODE_BLACKLISTED]: 3,
      [NODE_EXCLUDED]: 3,
    });
    // c and j (90, ties by id), the choice a, two CPU examples, every excluded and blacklisted node; in judged order
    expect(compact.kept.map((v) => v.id)).toEqual(['a', 'b', 'c', 'd', 'g', 'h', 'i', 'j', 'k', 'l', 'm']);
  });

  it('given top 0 and no choice, then only the rejection examples stay', () => {
    const kept = compactVerdicts(verdicts.slice(0, 6), undefined, 0).kept.map((v) => v.id);
    expect(kept).toEqual(['b', 'd']);
  });

  it('given nothing judged, then nothing is kept', () => {
    expect(compactVerdicts([], undefined)).toEqual({ judged: 0, rejectedCounts: {}, kept: [] });
  });
});
