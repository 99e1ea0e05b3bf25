import { HcnError } from '@hcn/contracts';

/** The SQL type a keyset value is compared as; each is checked before it reaches a query. */
export type KeyType = 'text' | 'uuid' | 'numeric' | 'timestamptz';

/** One key of a keyset: its SQL expression and type. */
export interface Key {
  readonly sql: string;
  readonly type: KeyType;
}

/**
 * The order of a listing as a keyset: the sort key (may be null: nulls sort last) in its direction, then tie-breaking
 * keys (never null, together unique) ascending.
 */
export interface Keyset {
  readonly sortName: string;
  readonly sort: Key;
  readonly order: 'asc' | 'desc';
  readonly ties: readonly Key[];
}

/** What a cursor holds: the sort name and order it continues, the last row's sort value and tie values. */
type CursorValues = [string, 'asc' | 'desc', string | null, ...string[]];

const MAX_VALUE = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

function validValue(value: unknown, type: KeyType): boolean {
  if (typeof value !== 'string' || value.length > MAX_VALUE) return false;
  if (type === 'uuid') return UUID.test(value);
  if (type === 'numeric') return NUMBER.test(value) || value === 'Infinity' || value === '-Infinity';
  if (type === 'timestamptz') return /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value));
  return true;
}

/** REQUEST.BAD_CURSOR: the cursor is not one this listing issued (or was issued for another sort or order). */
function badCursor(why: string): HcnError {
  return new HcnError('REQUEST.BAD_CURSOR', `cursor: ${why}; pass the nextCursor of the previous page`);
}

/** Encodes the cursor after a row (its keyset values as text, as SQL `to_json(...) #>> '{}'` gives them). */
export function encodeCursor(keyset: Keyset, sortValue: string | null, ties: readonly string[]): string {
  const values: CursorValues = [keyset.sortName, keyset.order, sortValue, ...ties];
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Decodes and checks a cursor for this keyset: its sort value and tie values, else REQUEST.BAD_CURSOR. */
export function decodeCursor(keyset: Keyset, cursor: string): { sort: string | null; ties: string[] } {
  let values: unknown;
  try {
    values = /^[A-Za-z0-9_-]+$/.test(cursor)
      ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
      : undefined;
  } catch {
    values = undefined;
  }
  if (!Array.isArray(values) || values.length !== 3 + keyset.ties.length) throw badCursor('not a cursor');
  const [sortName, order, sort, ...ties] = values as unknown[];
  if (sortName !== keyset.sortName || order !== keyset.order)
    throw badCursor('it belongs to another sort or order');
  if (sort !== null && !validValue(sort, keyset.sort.type)) throw badCursor('bad sort value');
  if (!ties.every((t, i) => validValue(t, keyset.ties[i].type))) throw badCursor('bad key');
  return { sort: sort as string | null, ties: ties as string[] };
}

/** `ORDER BY` of a keyset: the sort key in its direction (nulls last), then the ties ascending. */
export function keysetOrder(keyset: Keyset): string {
  const dir = keyset.order === 'asc' ? 'ASC' : 'DESC';
  return [`${keyset.sort.sql} ${dir} NULLS LAST`, ...keyset.ties.map((k) => `${k.sql} ASC`)].join(', ');
}

/** Select-list entries giving each keyset value as text (`hcn_key_0` the sort key, then the ties). */
export function keysetColumns(keyset: Keyset): string {
  return [keyset.sort, ...keyset.ties].map((k, i) => `to_json(${k.sql}) #>> '{}' AS hcn_key_${i}`).join(', ');
}

/**
 * The condition of the rows after a cursor's row, in the keyset's order (nulls last): `param` adds a value and
 * returns its placeholder.
 */
export function afterCursorSql(
  keyset: Keyset,
  at: { sort: string | null; ties: readonly string[] },
  param: (value: unknown) => string,
): string {
  const sort = keyset.sort.sql;
  const tieKeys = keyset.ties.map((k) => k.sql).join(', ');
  const tieValues = keyset.ties.map((k, i) => `${param(at.ties[i])}::${k.type}`).join(', ');
  const tiesAfter = `(${tieKeys}) > (${tieValues})`;
  if (at.sort === null) return `(${sort} IS NULL AND ${tiesAfter})`;
  const value = `${param(at.sort)}::${keyset.sort.type}`;
  const op = keyset.order === 'asc' ? '>' : '<';
  return `(${sort} ${op} ${value} OR (${sort} = ${value} AND ${tiesAfter}) OR ${sort} IS NULL)`;
}

/**
 * One page of items kept in memory, in the keyset's order already (sort value and ties of each item given by
 * `keys`): the items after the cursor, at most `limit`, and the cursor after the last one when more follow.
 */
export function pageInMemory<T>(
  items: readonly T[],
  keyset: Keyset,
  keys: (item: T) => string[],
  page: { limit: number; cursor?: string },
): { items: T[]; nextCursor: string | null } {
  let start = 0;
  if (page.cursor) {
    const at = decodeCursor(keyset, page.cursor);
    const after = [at.sort ?? '', ...at.ties];
    const compare = (item: T) => compareKeys(keys(item), after);
    start = items.findIndex((item) => (keyset.order === 'asc' ? compare(item) > 0 : compare(item) < 0));
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + page.limit);
  const more = start + page.limit < items.length;
  const last = slice[slice.length - 1];
  const [sort, ...ties] = last ? keys(last) : [];
  return { items: slice, nextCursor: more && last ? encodeCursor(keyset, sort, ties) : null };
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
