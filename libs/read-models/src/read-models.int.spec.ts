import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { loadCheckpoint, saveCheckpoint } from './checkpoints';
import { READ_MODEL_MIGRATIONS, openReadModels } from './data-source';

describeWithPostgres('read models on PostgreSQL (TypeORM migrations)', () => {
  let db: TestDatabase;
  beforeAll(async () => (db = await createTestDatabase('rm')));
  afterAll(async () => db.drop());

  it('applies migrations once, also from several processes at the same time', async () => {
    const sources = await Promise.all([1, 2, 3].map(() => openReadModels(db.url, 2)));
    try {
      const rows = await sources[0].query('SELECT name FROM read_model_migrations');
      expect(rows).toHaveLength(READ_MODEL_MIGRATIONS.length);
      const tables = await sources[0].query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
      );
      expect(tables.map((t: { table_name: string }) => t.table_name)).toContain('projection_checkpoints');
    } finally {
      await Promise.all(sources.map((s) => s.destroy()));
    }
  });

  it('undoes every migration and applies them again', async () => {
    const source = await openReadModels(db.url, 2);
    try {
      for (let i = 0; i < READ_MODEL_MIGRATIONS.length; i++)
        await source.undoLastMigration({ transaction: 'each' });
      expect(await source.query('SELECT name FROM read_model_migrations')).toEqual([]);
      await source.runMigrations({ transaction: 'each' });
      const columns = await source.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'node_state' ORDER BY 1`,
      );
      expect(columns.map((c: { column_name: string }) => c.column_name)).toContain('reserved_cpu_millis');
    } finally {
      await source.destroy();
    }
  });

  it('keeps a checkpoint only when its transaction commits', async () => {
    const source = await openReadModels(db.url, 2);
    try {
      await source.transaction((m) => saveCheckpoint(m, 'p1', { commit: 10n, prepare: 3n }, 5, new Date()));
      await expect(
        source.transaction(async (m) => {
          await saveCheckpoint(m, 'p1', { commit: 99n, prepare: 1n }, 1, new Date());
          throw new Error('projection write failed');
        }),
      ).rejects.toThrow('projection write failed');
      expect(await loadCheckpoint(source.manager, 'p1')).toEqual({ commit: 10n, prepare: 3n });
      expect(await loadCheckpoint(source.manager, 'never-ran')).toBeUndefined();
    } finally {
      await source.destroy();
    }
  });
});
