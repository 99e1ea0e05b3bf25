import { compileLabelPattern } from '@hcn/contracts';
import type { LabelPattern } from '@hcn/contracts';
import { assertNever } from './assert-never';
import type { LabelConstraint } from './model';

/** A label constraint ready to test: RE2 patterns compiled, `in` lists as sets; `invalid` explains a broken one. */
export interface CompiledLabelConstraint {
  readonly source: LabelConstraint;
  readonly text: string;
  readonly invalid?: string;
  readonly pattern?: LabelPattern;
  readonly set?: ReadonlySet<string>;
}

/** Compiles one constraint; `regex` patterns (RE2 syntax, linear-time) must match the whole value. */
export function compileLabelConstraint(source: LabelConstraint): CompiledLabelConstraint {
  const text = describeConstraint(source);
  switch (source.op) {
    case '=':
    case '!=':
      return source.value === undefined
        ? { source, text, invalid: `${text}: needs a value` }
        : { source, text };
    case 'regex':
      return compileRegex(source, text);
    case 'in':
    case 'notin':
      return source.values === undefined
        ? { source, text, invalid: `${text}: needs values` }
        : { source, text, set: new Set(source.values) };
    case 'exists':
      return { source, text };
    default:
      return assertNever(source.op);
  }
}

function compileRegex(source: LabelConstraint, text: string): CompiledLabelConstraint {
  if (source.value === undefined) return { source, text, invalid: `${text}: needs a pattern` };
  const compiled = compileLabelPattern(source.value);
  return compiled.ok
    ? { source, text, pattern: compiled.pattern }
    : { source, text, invalid: `${text}: invalid pattern (${compiled.error})` };
}

/** True when the label value (undefined: label absent) satisfies the constraint. */
export function labelMatches(c: CompiledLabelConstraint, value: string | undefined): boolean {
  const op = c.source.op;
  switch (op) {
    case '=':
      return value === c.source.value;
    case '!=':
      return value !== c.source.value;
    case 'regex':
      return value !== undefined && c.pattern !== undefined && c.pattern.matches(value);
    case 'in':
      return value !== undefined && c.set!.has(value);
    case 'notin':
      return value === undefined || !c.set!.has(value);
    case 'exists':
      return value !== undefined;
    default:
      return assertNever(op);
  }
}

/** `key=value`, `key in (a,b)`, `key exists`, ... */
export function describeConstraint(c: LabelConstraint): string {
  const op = c.op;
  switch (op) {
    case '=':
    case '!=':
      return `${c.key}${op}${c.value ?? ''}`;
    case 'regex':
      return `${c.key}=~/${c.value ?? ''}/`;
    case 'in':
    case 'notin':
      return `${c.key} ${op} (${(c.values ?? []).join(',')})`;
    case 'exists':
      return `${c.key} exists`;
    default:
      return assertNever(op);
  }
}

/**
 * True when some node among `usable` nodes, whose label values for the constraint's key are counted in `values`
 * (value → number of nodes), can satisfy the constraint: the sound test that lets a whole subtree be skipped.
 */
export function someNodeCanMatch(
  c: CompiledLabelConstraint,
  values: ReadonlyMap<string, number> | undefined,
  usable: number,
): boolean {
  const op = c.source.op;
  const count = (value: string | undefined) => (value === undefined ? 0 : (values?.get(value) ?? 0));
  switch (op) {
    case '=':
      return count(c.source.value) > 0;
    case '!=':
      return usable - count(c.source.value) > 0;
    case 'regex':
      return [...(values?.keys() ?? [])].some(
        (v) => count(v) > 0 && c.pattern !== undefined && c.pattern.matches(v),
      );
    case 'in':
      return [...c.set!].some((v) => count(v) > 0);
    case 'notin':
      return usable - [...c.set!].reduce((sum, v) => sum + count(v), 0) > 0;
    case 'exists':
      return [...(values?.values() ?? [])].some((n) => n > 0);
    default:
      return assertNever(op);
  }
}
