import { openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import { ThrottledCheckpoint } from './throttled-checkpoint';

const at = (commit: number) => ({ commit: BigInt(commit), prepare: BigInt(commit) });

describeWithPostgres('ThrottledCheckpoint (real PostgreSQL read models)', () => {
  let database: TestDatabase;
  let readModels: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('throttled_checkpoint');
    readModels = await openReadModels(database.url, 2);
  });

  afterAll(async () => {
    await readModels?.destroy();
    await database?.drop();
  });

  it('given no save yet, when loaded, then a follower starts from the beginning', async () => {
    await expect(new ThrottledCheckpoint(readModels, 'never-saved').load()).resolves.toBeUndefined();
  });

  it('saves the first position at once, then at most every interval, and the last one on save', async () => {
    const checkpoint = new ThrottledCheckpoint(readModels, 'throttled', 60_000);
    const reread = () => new ThrottledCheckpoint(readModels, 'throttled').load();
    await checkpoint.reached(at(5));
    await expect(reread()).resolves.toEqual(at(5));
    await checkpoint.reached(at(9)); // within the interval: kept, not saved
    await expect(reread()).resolves.toEqual(at(5));
    await checkpoint.reached(at(12), true); // now
    await expect(reread()).resolves.toEqual(at(12));
    await checkpoint.reached(at(20));
    await checkpoint.save(); // stop
    await expect(reread()).resolves.toEqual(at(20));
  });

  it('given nothing reached, when saved, then nothing is written', async () => {
    await new ThrottledCheckpoint(readModels, 'idle').save();
    await expect(new ThrottledCheckpoint(readModels, 'idle').load()).resolves.toBeUndefined();
  });
});
