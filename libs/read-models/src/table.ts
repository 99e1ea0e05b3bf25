import type { EntityManager } from 'typeorm';

/** SQL types of read-model columns (as `jsonb_to_recordset` reads them on the way in). */
export type ColumnType =
  'uuid' | 'text' | 'int' | 'bigint' | 'double precision' | 'boolean' | 'jsonb' | 'timestamptz';

/** A read-model table: its name, its primary key (one column or several) and every column with its SQL type. */
export interface TableDefinition<Row> {
  readonly name: string;
  readonly key: (keyof Row & string) | ReadonlyArray<keyof Row & string>;
  readonly columns: { readonly [K in keyof Row & string]: ColumnType };
}

/** Defines a table; the compiler checks the columns name exactly the fields of `Row`. */
export function defineTable<Row>(definition: TableDefinition<Row>): TableDefinition<Row> {
  return definition;
}

/**
 * The SELECT list of some columns (all by default), qualified with `alias` when the table is joined; timestamps are
 * read as ISO-8601 text, so a row written back keeps its exact value (microseconds included).
 */
export function selectList<Row>(
  table: TableDefinition<Row>,
  names: ReadonlyArray<keyof Row & string> = Object.keys(table.columns) as Array<keyof Row & string>,
  alias?: string,
): string {
  const of = (c: string) => (alias ? `${alias}.${c}` : c);
  return names
    .map((c) => (table.columns[c] === 'timestamptz' ? `to_json(${of(c)}) #>> '{}' AS ${c}` : of(c)))
    .join(', ');
}

/** The key columns of a table. */
function keyOf<Row>(table: TableDefinition<Row>): ReadonlyArray<keyof Row & string> {
  return typeof table.key === 'string' ? [table.key] : table.key;
}

/** `INSERT ... SELECT` of rows passed as one jsonb parameter, every column typed as the table says. */
function insertFromJson<Row>(table: TableDefinition<Row>): string {
  const names = Object.keys(table.columns) as Array<keyof Row & string>;
  const typed = names.map((c) => `${c} ${table.columns[c]}`).join(', ');
  return `INSERT INTO ${table.name} (${names.join(', ')})
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${typed})`;
}

/** Inserts rows in one statement, or updates every column but the key of the rows already there. */
export async function upsertRows<Row>(
  tx: EntityManager,
  table: TableDefinition<Row>,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const key = keyOf(table);
  const updates = (Object.keys(table.columns) as Array<keyof Row & string>)
    .filter((c) => !key.includes(c))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  await tx.query(`${insertFromJson(table)} ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${updates}`, [
    JSON.stringify(rows),
  ]);
}

/** Inserts rows in one statement; rows whose key is there already are left as they are (replayed events). */
export async function insertNewRows<Row>(
  tx: EntityManager,
  table: TableDefinition<Row>,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(`${insertFromJson(table)} ON CONFLICT (${keyOf(table).join(', ')}) DO NOTHING`, [
    JSON.stringify(rows),
  ]);
}
