import { ValidationError } from '../errors';

const NUL = '\u0000';

/** The dotted path of the first string (value or key) holding a NUL character, or undefined when there is none. */
export function nulPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path || '(root)' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  for (const [key, child] of entries) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes(NUL)) return at;
    const found = nulPath(child, at);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses input holding a NUL character anywhere (PostgreSQL cannot store it in text or JSON): a ValidationError
 * with `<code>.NUL_CHARACTER` on the field, raised at the edge before anything is written.
 */
export function rejectNul(value: unknown, code: string, what: string): void {
  const path = nulPath(value);
  if (path === undefined) return;
  throw new ValidationError(code, `${what} is invalid: ${path}: contains a NUL character (\\u0000)`, [
    { path, code: `${code}.NUL_CHARACTER`, message: 'contains a NUL character (\\u0000)' },
  ]);
}
