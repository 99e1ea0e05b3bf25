import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';

/** Removes what a schema fills back on parse from a value it parsed; undefined: nothing inside ever is. */
type Stripper = (value: unknown) => unknown;

/**
 * How a schema's output is stored: `value` is the output; `strip` leaves out the members equal to their defaults
 * (at any depth; for an object schema, else it returns what it is given). Must return what parses back to `value`.
 */
export type StoredForm<S extends z.ZodType> = (
  value: z.output<S>,
  strip: (value: z.output<S>) => Record<string, unknown>,
) => unknown;

const compiled = new WeakMap<z.ZodType, Stripper | null>();
const storedForms = new WeakMap<z.ZodType, StoredForm<z.ZodType>>();

/**
 * Declares how `schema`'s output is stored when it leaves out more than its defaults: values its `overwrite` or
 * `transform` fills back (a restart policy by workload type, a decision hop's scope from the hop before).
 * `withoutDefaults` calls `toStored` wherever it meets `schema`. Returns the schema.
 */
export function withStoredForm<S extends z.ZodType>(schema: S, toStored: StoredForm<S>): S {
  storedForms.set(schema, toStored as StoredForm<z.ZodType>);
  compiled.delete(schema);
  return schema;
}

/**
 * `value` (the output of `schema`) without what parsing fills back: object members whose value equals their
 * `.default(...)`, at any depth through objects, optional, nullable, arrays and records, and what a schema's stored
 * form (`withStoredForm`) leaves out. Parsing the result gives `value` again (up to key order), so the defaults of
 * a stored schema version never change. Transforms, unions, tuples and lazy schemas are kept whole.
 */
export function withoutDefaults(schema: z.ZodType, value: unknown): unknown {
  const strip = stripperOf(schema);
  return strip ? strip(value) : value;
}

function stripperOf(schema: z.ZodType): Stripper | undefined {
  let strip = compiled.get(schema);
  if (strip === undefined) {
    compiled.set(schema, null); // a recursive schema meets itself while compiling: kept whole there
    strip = compile(schema) ?? null;
    compiled.set(schema, strip);
  }
  return strip ?? undefined;
}

function compile(schema: z.ZodType): Stripper | undefined {
  const stored = storedForms.get(schema);
  const own = ownStripper(schema);
  if (stored) return (v) => stored(v, (x) => (own ? own(x) : x) as Record<string, unknown>);
  return own;
}

function ownStripper(schema: z.ZodType): Stripper | undefined {
  if (schema instanceof z.ZodObject) return objectStripper(schema);
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    const inner = stripperOf(schema.unwrap() as z.ZodType);
    return inner && ((v) => (v === undefined || v === null ? v : inner(v)));
  }
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodReadonly)
    return stripperOf(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodArray) {
    const element = stripperOf(schema.element as z.ZodType);
    return element && ((v) => (Array.isArray(v) ? v.map(element) : v));
  }
  if (schema instanceof z.ZodRecord) {
    const member = stripperOf(schema.valueType as z.ZodType);
    return member && ((v) => (isRecord(v) ? mapValues(v, member) : v));
  }
  return undefined;
}

interface FieldRule {
  readonly key: string;
  readonly fallback?: { readonly value: unknown };
  readonly inner?: Stripper;
}

function objectStripper(schema: z.ZodObject): Stripper | undefined {
  const rules: FieldRule[] = [];
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const fallback = field instanceof z.ZodDefault ? { value: field.def.defaultValue } : undefined;
    const inner = stripperOf(field);
    if (fallback || inner) rules.push({ key, fallback, inner });
  }
  if (rules.length === 0) return undefined;
  const byKey = new Map(rules.map((rule) => [rule.key, rule]));
  // one pass building the copy (a `delete` on a spread copy would turn it into a slow dictionary object)
  return (value) => {
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const member = value[key];
      const rule = member === undefined ? undefined : byKey.get(key);
      if (rule?.fallback && equalsDefault(member, rule.fallback.value)) continue;
      out[key] = rule?.inner ? rule.inner(member) : member;
    }
    return out;
  };
}

/** `isDeepStrictEqual`, without its machinery for the common primitive default (same answers: `Object.is`). */
function equalsDefault(member: unknown, fallback: unknown): boolean {
  if (typeof fallback !== 'object' || fallback === null) return Object.is(member, fallback);
  return isDeepStrictEqual(member, fallback);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapValues(value: Record<string, unknown>, f: Stripper): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[key] = f(member);
  return out;
}
