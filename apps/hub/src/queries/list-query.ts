import { z } from '@hcn/contracts';
import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import { Keyset, afterCursorSql, decodeCursor, encodeCursor, keysetColumns, keysetOrder } from './cursor';

/** A query parameter given once or repeated (`?x=a&x=b`), as a list (empty when absent). */
export const repeatable = <T extends z.ZodTypeAny>(item: T, max = 20) =>
  z
    .union([item, z.array(item).max(max)])
    .optional()
    .transform((v) => (v === undefined ? [] : ([v].flat() as Array<z.output<T>>)));

/** A boolean query parameter (`true` / `false`). */
export const booleanParam = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** `limit` (1..1000, default 100) and `cursor` (the previous page's `nextCursor`) of a listing: every list pages so. */
export const pageShape = {
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(2000).optional(),
};

/**
 * One page of a listing: its items, the cursor of the next page (null on the last), and every match's count (the
 * type of `pageOf`'s schema, with items of `T`).
 */
export type Page<T> = Omit<z.output<ReturnType<typeof pageOf<z.ZodUnknown>>>, 'items'> & { items: T[] };

/** `sort` (one of the given fields) and `order` of a listing, with their defaults. */
export function sortShape<K extends string>(
  fields: readonly [K, ...K[]],
  sort: K,
  order: 'asc' | 'desc' = 'asc',
) {
  return { sort: z.enum(fields).default(sort), order: z.enum(['asc', 'desc']).default(order) };
}

/** WHERE conditions of a listing and their positional parameters. */
export class Conditions {
  readonly where: string[] = [];
  readonly params: unknown[] = [];

  /** Adds a parameter; returns its placeholder (`$n`). */
  param(value: unknown): string {
    return `$${this.params.push(value)}`;
  }

  /** Adds a condition; every `?` in it stands for the value. */
  add(sql: string, value: unknown): this {
    this.where.push(sql.replaceAll('?', this.param(value)));
    return this;
  }

  /** Adds a condition whose `?`s stand for the values, one each, in order. */
  addEach(sql: string, ...values: unknown[]): this {
    let next = 0;
    this.where.push(sql.replace(/\?/g, () => this.param(values[next++])));
    return this;
  }

  /** `WHERE a AND b`, or nothing without conditions. */
  clause(): string {
    return this.where.length > 0 ? `WHERE ${this.where.join(' AND ')}` : '';
  }
}

/**
 * OpenAPI declarations of a route's query parameters: name and description, and with the zod schema that validates
 * them, each one's type (its JSON Schema as the request gives it) and whether it is required; every parameter of
 * the schema is declared, described or not.
 */
export function ApiQueries(
  params: ReadonlyArray<readonly [string, string]>,
  schema?: z.ZodType,
): MethodDecorator {
  const json = (schema ? z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) : {}) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const described = new Map(params.map(([name, description]) => [name, description]));
  const names = [...new Set([...described.keys(), ...Object.keys(json.properties ?? {})])];
  return applyDecorators(
    ...names.map((name) => {
      const property = json.properties?.[name];
      return ApiQuery({
        name,
        required: json.required?.includes(name) ?? false,
        ...(described.has(name) ? { description: described.get(name) } : {}),
        ...(property ? { schema: property } : {}),
      });
    }),
  );
}

/** Descriptions of `sort`, `order`, `limit` and `cursor` for ApiQueries. */
export function sortAndPageDocs(
  fields: readonly string[],
  order: 'asc' | 'desc' = 'asc',
): Array<[string, string]> {
  const [first, ...rest] = fields;
  return [
    ['sort', [`${first} (default)`, ...rest].join(' | ')],
    ['order', order === 'asc' ? 'asc (default) | desc' : 'desc (default) | asc'],
    ...pageDocs,
  ];
}

/** Descriptions of `limit` and `cursor` for ApiQueries. */
export const pageDocs: Array<[string, string]> = [
  ['limit', 'page size, 1..1000 (default 100)'],
  ['cursor', 'nextCursor of the previous page (same sort and order)'],
];

/** What one page of a listing reads: `SELECT columns FROM from WHERE … ORDER BY <keyset> LIMIT …`. */
export interface PageQuery {
  readonly columns: string;
  /** Tables (and joins) after FROM. */
  readonly from: string;
  readonly where: Conditions;
  readonly keyset: Keyset;
  readonly page: { limit: number; cursor?: string };
}

/**
 * One page of rows after the cursor in the keyset's order, the cursor after its last row when more follow, and the
 * number of rows matching the conditions (read at the same time).
 */
export async function listPage<R>(db: DataSource, q: PageQuery): Promise<Page<R>> {
  const where = q.where.clause();
  const countParams = [...q.where.params];
  if (q.page.cursor) {
    const at = decodeCursor(q.keyset, q.page.cursor);
    q.where.where.push(afterCursorSql(q.keyset, at, (v) => q.where.param(v)));
  }
  const [rows, count]: [Array<Record<string, unknown>>, Array<{ n: number }>] = await Promise.all([
    db.query(
      `SELECT ${q.columns}, ${keysetColumns(q.keyset)} FROM ${q.from} ${q.where.clause()}
       ORDER BY ${keysetOrder(q.keyset)} LIMIT ${q.page.limit + 1}`,
      q.where.params,
    ),
    db.query(`SELECT count(*)::int AS n FROM ${q.from} ${where}`, countParams),
  ]);
  const items = rows.slice(0, q.page.limit);
  const last = items[items.length - 1];
  const keys = (row: Record<string, unknown>) =>
    [q.keyset.sort, ...q.keyset.ties].map((_, i) => row[`hcn_key_${i}`] as string | null);
  const nextCursor =
    rows.length > q.page.limit && last
      ? encodeCursor(q.keyset, keys(last)[0], keys(last).slice(1) as string[])
      : null;
  for (const row of items) for (let i = 0; i <= q.keyset.ties.length; i++) delete row[`hcn_key_${i}`];
  return { items: items as R[], nextCursor, total: count[0].n };
}
