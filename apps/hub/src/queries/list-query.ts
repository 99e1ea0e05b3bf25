import { z } from '@hcn/contracts';
import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';

/** A query parameter given once or repeated (`?x=a&x=b`), as a list (empty when absent). */
export const repeatable = <T extends z.ZodTypeAny>(item: T, max = 20) =>
  z
    .union([item, z.array(item).max(max)])
    .optional()
    .transform((v) => (v === undefined ? [] : ([v].flat() as Array<z.output<T>>)));

/** A boolean query parameter (`true` / `false`). */
export const booleanParam = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** `limit` (1..1000, default 100) and `offset` (default 0) of a paged listing. */
export const pageShape = {
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
};

/** `limit` (1..1000; absent: every row) and `offset` of a listing that returned everything before it was paged. */
export const optionalPageShape = {
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).default(0),
};

/** `sort` (one of the given fields) and `order` of a listing, with their defaults. */
export function sortShape<K extends string>(
  fields: readonly [K, ...K[]],
  sort: K,
  order: 'asc' | 'desc' = 'asc',
) {
  return { sort: z.enum(fields).default(sort), order: z.enum(['asc', 'desc']).default(order) };
}

/** SQL of a sort: the column, the direction, nulls last, then the tie-breaking columns. */
export function orderBy(column: string, order: 'asc' | 'desc', ...tieBreak: string[]): string {
  return [`${column} ${order === 'asc' ? 'ASC' : 'DESC'} NULLS LAST`, ...tieBreak].join(', ');
}

/** `LIMIT n OFFSET m` (`LIMIT ALL` without a limit); both are validated integers. */
export function limitOffset(page: { limit?: number; offset: number }): string {
  return `LIMIT ${page.limit ?? 'ALL'} OFFSET ${page.offset}`;
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

/** OpenAPI declarations of a listing's query parameters (all optional): name and description. */
export function ApiQueries(params: ReadonlyArray<readonly [string, string]>): MethodDecorator {
  return applyDecorators(
    ...params.map(([name, description]) => ApiQuery({ name, required: false, description })),
  );
}

/** Descriptions of `sort`, `order`, `limit` and `offset` for ApiQueries. */
export function sortAndPageDocs(
  fields: readonly string[],
  order: 'asc' | 'desc' = 'asc',
  limit = '1..1000, default 100',
): Array<[string, string]> {
  const [first, ...rest] = fields;
  return [
    ['sort', [`${first} (default)`, ...rest].join(' | ')],
    ['order', order === 'asc' ? 'asc (default) | desc' : 'desc (default) | asc'],
    ['limit', limit],
    ['offset', 'default 0'],
  ];
}

/** Sets `X-Total-Count` and returns the items: paging of listings whose response is a bare array. */
export function totalCountHeader<T>(
  res: { setHeader(name: string, value: string): unknown },
  page: { items: T[]; total: number },
): T[] {
  res.setHeader('X-Total-Count', String(page.total));
  return page.items;
}

/** What one page of a listing reads: `SELECT columns FROM from WHERE … ORDER BY order LIMIT … OFFSET …`. */
export interface PageQuery {
  readonly columns: string;
  /** Tables (and joins) after FROM. */
  readonly from: string;
  readonly where: Conditions;
  /** SQL after ORDER BY (see `orderBy`). */
  readonly order: string;
  readonly page: { limit?: number; offset: number };
}

/** One page of rows and the number of rows matching the conditions, read at the same time. */
export async function listPage<R>(db: DataSource, q: PageQuery): Promise<{ rows: R[]; total: number }> {
  const where = q.where.clause();
  const [rows, count] = await Promise.all([
    db.query(
      `SELECT ${q.columns} FROM ${q.from} ${where} ORDER BY ${q.order} ${limitOffset(q.page)}`,
      q.where.params,
    ),
    db.query(`SELECT count(*)::int AS n FROM ${q.from} ${where}`, q.where.params),
  ]);
  return { rows: rows as R[], total: (count as Array<{ n: number }>)[0].n };
}
