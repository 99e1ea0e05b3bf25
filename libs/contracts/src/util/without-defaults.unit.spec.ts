import { z } from 'zod';
import { withStoredForm, withoutDefaults } from './without-defaults';

const inner = z.object({ tags: z.array(z.string()).default([]), weight: z.number().default(1) });
const schema = z.object({
  name: z.string(),
  count: z.number().default(0),
  inner: inner.default({ tags: [], weight: 1 }),
  optional: inner.optional(),
  list: z.array(inner).default([]),
  byKey: z.record(z.string(), inner).optional(),
  nullable: z.string().nullable().default(null),
  union: z.union([z.object({ a: z.number().default(0) }), z.string()]).optional(),
});

describe('withoutDefaults', () => {
  it('leaves out members equal to their default, at any depth, and parsing gives the value back', () => {
    const value = schema.parse({
      name: 'x',
      optional: { tags: ['t'] },
      list: [{ weight: 2 }, {}],
      byKey: { k: { tags: [] } },
    });
    const stored = withoutDefaults(schema, value);
    expect(stored).toEqual({
      name: 'x',
      optional: { tags: ['t'] },
      list: [{ weight: 2 }, {}],
      byKey: { k: {} },
    });
    expect(schema.parse(stored)).toEqual(value);
  });

  it('keeps members that differ from their default, and a whole default object that differs in part', () => {
    const value = schema.parse({ name: 'x', count: 3, inner: { tags: ['a'] }, nullable: 'n' });
    const stored = withoutDefaults(schema, value);
    expect(stored).toEqual({ name: 'x', count: 3, inner: { tags: ['a'] }, nullable: 'n' });
    expect(schema.parse(stored)).toEqual(value);
  });

  it('keeps unions whole (which branch parsed is not known)', () => {
    const value = schema.parse({ name: 'x', union: { a: 0 } });
    expect(withoutDefaults(schema, value)).toEqual({ name: 'x', union: { a: 0 } });
  });

  it('applies a stored form wherever its schema is met, with the defaults already left out', () => {
    const pair = withStoredForm(
      z
        .object({ low: z.number(), high: z.number().optional(), unit: z.string().default('s') })
        .overwrite((p) => ({ ...p, high: p.high ?? p.low })),
      (p, strip) => (p.high === p.low ? { ...strip(p), high: undefined } : strip(p)),
    );
    const outer = z.object({ pairs: z.array(pair) });
    const value = outer.parse({ pairs: [{ low: 1 }, { low: 1, high: 2, unit: 'ms' }] });
    const stored = JSON.parse(JSON.stringify(withoutDefaults(outer, value)));
    expect(stored).toEqual({ pairs: [{ low: 1 }, { low: 1, high: 2, unit: 'ms' }] });
    expect(outer.parse(stored)).toEqual(value);
  });

  it('returns values of schemas without defaults as they are', () => {
    const plain = z.object({ a: z.number(), b: z.array(z.string()) });
    const value = { a: 1, b: ['x'] };
    expect(withoutDefaults(plain, value)).toBe(value);
  });
});
