import { compileLabelConstraint, labelMatches, someNodeCanMatch } from './labels';
import type { LabelConstraint } from './model';

const regex = (value: string): LabelConstraint => ({ key: 'gpu', op: 'regex', value });

describe('regex label constraints (RE2, whole value)', () => {
  it.each<[string, string, string | undefined, boolean]>([
    ['matches the whole value', 'nv.*', 'nvidia', true],
    ['is anchored at the start', 'vidia', 'nvidia', false],
    ['is anchored at the end', 'nvid', 'nvidia', false],
    ['alternation stays anchored', 'amd|nv', 'nvidia', false],
    ['a missing label never matches', '.*', undefined, false],
    ['an empty value matches an empty pattern', '', '', true],
  ])('%s: /%s/ on %j → %s', (_what, pattern, value, expected) => {
    const c = compileLabelConstraint(regex(pattern));
    expect(c.invalid).toBeUndefined();
    expect(labelMatches(c, value)).toBe(expected);
  });

  it.each([
    ['(', 'missing closing )'],
    ['(a)\\1', 'invalid escape sequence'],
    ['(?=a)a', 'invalid or unsupported Perl syntax'],
    ['(?<!a)b', 'invalid named capture'],
  ])('refuses /%s/ as invalid (%s)', (pattern, why) => {
    const c = compileLabelConstraint(regex(pattern));
    expect(c.invalid).toContain('gpu=~/');
    expect(c.invalid).toContain('invalid pattern');
    expect(c.invalid).toContain(why);
    expect(labelMatches(c, 'a')).toBe(false);
  });

  it('tests subtree label counts with the same engine', () => {
    const c = compileLabelConstraint(regex('asc.*'));
    expect(someNodeCanMatch(c, new Map([['ascend', 1]]), 1)).toBe(true);
    expect(someNodeCanMatch(c, new Map([['ascend', 0]]), 1)).toBe(false);
  });

  it('decides (.*)*Q against a 40-character label that does not match in under 1 ms', () => {
    const c = compileLabelConstraint(regex('(.*)*Q'));
    const label = 'a'.repeat(40);
    const runs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      expect(labelMatches(c, label)).toBe(false);
      runs.push(performance.now() - start);
    }
    const median = [...runs].sort((a, b) => a - b)[10]!;
    expect(median).toBeLessThan(1);
    expect(labelMatches(c, `${label}Q`)).toBe(true);
  });
});
