import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import * as readModels from './index';
import type { ColumnType, TableDefinition } from './table';

/** information_schema's data_type of each column type a definition may name. */
const DATA_TYPE: Record<ColumnType, string> = {
  uuid: 'uuid',
  text: 'text',
  int: 'integer',
  bigint: 'bigint',
  'double precision': 'double precision',
  boolean: 'boolean',
  jsonb: 'jsonb',
  timestamptz: 'timestamp with time zone',
};

function isTableDefinition(value: unknown): value is TableDefinition<Record<string, unknown>> {
  const v = value as Partial<TableDefinition<unknown>> | null;
  return typeof v === 'object' && v !== null && typeof v.name === 'string' && typeof v.columns === 'object';
}

/** Every table defined once in this lib (`defineTable`), as exported. */
const definitions = (Object.values(readModels) as unknown[]).filter(isTableDefinition);

describeWithPostgres('read-model table definitions match the migrated schema', () => {
  let db: TestDatabase;
  let schema: Map<string, Map<string, string>>;
  let keys: Map<string, string[]>;
  beforeAll(async () => {
    db = await createTestDatabase('rm_defs');
    const source = await readModels.openReadModels(db.url, 2);
    try {
      const columns: Array<{ table_name: string; column_name: string; data_type: string }> =
        await source.query(
          `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public'`,
        );
      schema = new Map();
      for (const c of columns) {
        if (!schema.has(c.table_name)) schema.set(c.table_name, new Map());
        schema.get(c.table_name)?.set(c.column_name, c.data_type);
      }
      const primary: Array<{ table_name: string; column_name: string }> = await source.query(
        `SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc
         JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name
         WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = 'public' ORDER BY kcu.ordinal_position`,
      );
      keys = new Map();
      for (const k of primary) keys.set(k.table_name, [...(keys.get(k.table_name) ?? []), k.column_name]);
    } finally {
      await source.destroy();
    }
  });
  afterAll(async () => db?.drop());

  it('finds the definitions (device_state and delegation_hops among them)', () => {
    expect(definitions.map((d) => d.name)).toEqual(
      expect.arrayContaining(['device_state', 'delegation_hops']),
    );
  });

  it.each(definitions.map((d) => [d.name, d] as const))(
    '%s: every column with its type, and its key',
    (name, d) => {
      const actual = schema.get(name);
      expect(actual).toBeDefined();
      const declared = Object.entries(d.columns).map(([column, type]) => [
        column,
        DATA_TYPE[type as ColumnType],
      ]);
      expect(declared).toEqual(declared.map(([column]) => [column, actual?.get(column)]));
      const key = typeof d.key === 'string' ? [d.key] : [...(d.key as string[])];
      expect([...(keys.get(name) ?? [])].sort()).toEqual(key.sort());
    },
  );
});
