import { ValidationError } from '../errors';
import { labelConstraintSchema } from '../events/workload.spec';
import { parseOrThrow } from '../validation';
import { compileLabelPattern } from './label-pattern';

describe('label patterns (RE2, linear time)', () => {
  it.each([
    ['a class', 'z[0-9]', 'z1', true],
    ['the whole value only', 'nvid', 'nvidia', false],
    ['an alternation, whole value', 'a|ab', 'ab', true],
    ['an alternation is anchored as a whole', 'a|b', 'ab', false],
    ['a Perl class', '\\d+', '42', true],
    ['a Unicode class', '\\p{L}+', 'größe', true],
    ['an inline flag', '(?i)NV.*', 'nvidia', true],
    ['the empty pattern', '', '', true],
    ['the nested star', '(.*)*Q', 'aQ', true],
  ])('%s: /%s/ on %j → %s', (_what, source, value, expected) => {
    const compiled = compileLabelPattern(source);
    if (!compiled.ok) throw new Error(compiled.error);
    expect(compiled.pattern.matches(value)).toBe(expected);
  });

  it.each([
    ['an unbalanced group', '('],
    ['a group closed early (no escape from the anchors)', 'a)|(b'],
    ['a backreference', '(a)\\1'],
    ['a lookahead', '(?=a)a'],
    ['a negative lookahead', '(?!a)b'],
    ['a lookbehind', '(?<=a)b'],
    ['a repeat over 1000', 'x{1001}'],
  ])('refuses %s: /%s/', (_what, source) => {
    const compiled = compileLabelPattern(source);
    expect(compiled.ok).toBe(false);
  });

  it('refuses at the edge with a dotted code on the field', () => {
    let error: unknown;
    try {
      parseOrThrow(
        labelConstraintSchema,
        { key: 'gpu', op: 'regex', value: '(?=a)a' },
        'WORKLOAD.SPEC',
        'Spec',
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      expect.objectContaining({ path: 'value', code: 'WORKLOAD.SPEC.CUSTOM' }),
    ]);
    expect((error as ValidationError).issues[0]!.message).toMatch(/^not a valid RE2 pattern: /);
  });

  it.each(['z[0-9]', '(.*)*Q', '\\p{Han}+'])('accepts /%s/ at the edge', (value) => {
    expect(labelConstraintSchema.safeParse({ key: 'gpu', op: 'regex', value }).success).toBe(true);
  });

  it('returns the same compiled form for the same source', () => {
    expect(compileLabelPattern('m.*')).toBe(compileLabelPattern('m.*'));
  });
});
