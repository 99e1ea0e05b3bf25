/** Collects the paths where two JSON-like values differ (object key order ignored), at most `limit`. */
export function diffJson(a: unknown, b: unknown, path: string, out: string[], limit: number): void {
  if (out.length >= limit || a === b) return;
  const objects = typeof a === 'object' && typeof b === 'object' && a !== null && b !== null;
  if (!objects || Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path || '.'}: recorded ${JSON.stringify(a)}, replayed ${JSON.stringify(b)}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) {
    out.push(`${path}: recorded ${a.length} items, replayed ${b.length}`);
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])];
  for (const key of keys) diffJson(ra[key], rb[key], `${path}.${key}`, out, limit);
}
