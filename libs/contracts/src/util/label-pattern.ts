import { RE2JS } from 're2js';

/**
 * A label-selector pattern compiled once by RE2 (re2js, pure JavaScript): matching takes time linear in the
 * value, with no backtracking, so no user-supplied pattern can stall the event loop.
 */
export interface LabelPattern {
  /** The pattern as the user wrote it (RE2 syntax, unanchored text). */
  readonly source: string;
  /** True when the pattern matches the whole value (anchored at both ends). */
  matches(value: string): boolean;
}

/** A compiled label pattern, or the engine's reason it cannot be compiled (e.g. lookaround, backreferences). */
export type LabelPatternResult =
  { readonly ok: true; readonly pattern: LabelPattern } | { readonly ok: false; readonly error: string };

/** Compiled patterns kept for reuse (validation at the edge, then every scheduling decision), oldest dropped. */
const cache = new Map<string, LabelPatternResult>();
const CACHE_SIZE = 512;

/**
 * Compiles a label-selector pattern in RE2 syntax, the one form used both to validate specs and to schedule;
 * a match must cover the whole label value.
 */
export function compileLabelPattern(source: string): LabelPatternResult {
  const known = cache.get(source);
  if (known !== undefined) return known;
  const result = compile(source);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(source, result);
  return result;
}

function compile(source: string): LabelPatternResult {
  try {
    const re = RE2JS.compile(source);
    return { ok: true, pattern: { source, matches: (value) => re.testExact(value) } };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
