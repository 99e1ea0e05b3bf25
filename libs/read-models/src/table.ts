import type { EntityManager } from 'typeorm';

/** SQL types of read-model columns (as `jsonb_to_recordset` reads them on the way in). */
export type ColumnType = 'uuid' | 'text' | 'int' | 'bigint' | 'boolean' | 'jsonb' | 'timestamptz';

/** A read-model table: its name, its primary key and every column with its SQL type, keyed like its row type. */
export interface TableDefinition<Row> {
  readonly name: string;
  readonly key: keyof Row & string;
  readonly columns: { readonly [K in keyof Row & string]: ColumnType };
}

/** Defines a table; the compiler checks the columns name exactly the fields of `Row`. */
export function defineTable<Row>(definition: TableDefinition<Row>): TableDefinition<Row> {
  return definition;
}

/**
 * The SELECT list of some columns (all by default); timestamps are read as ISO-8601 text, so a row written back keeps
 * its exact value (microseconds included).
 */
export function selectList<Row>(
  table: TableDefinition<Row>,
  names: ReadonlyArray<keyof Row & string> = Object.keys(table.columns) as Array<keyof Row & string>,
): string {
  return names
    .map((c) => (table.columns[c] === 'timestamptz' ? `to_json(${c}) #>> '{}' AS ${c}` : c))
    .join(', ');
}

/** Inserts rows in one statement, or updates every column but the key of the rows already there. */
export async function upsertRows<Row>(
  tx: EntityManager,
  table: TableDefinition<Row>,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(table.columns) as Array<keyof Row & string>;
  const typed = names.map((c) => `${c} ${table.columns[c]}`).join(', ');
  const updates = names
    .filter((c) => c !== table.key)
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  await tx.query(
    `INSERT INTO ${table.name} (${names.join(', ')})
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${typed})
     ON CONFLICT (${table.key}) DO UPDATE SET ${updates}`,
    [JSON.stringify(rows)],
  );
}
