import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { Client } from 'pg';
import { testEventRegistry, thing, uniqueStream } from '../testing/test-events';
import { verifyHashChain } from '../verify/verify-hash-chain';
import { PostgresEventStore } from './postgres-event-store';

describeWithPostgres('PostgreSQL scavenge: deleting what retention hides', () => {
  let store: PostgresEventStore;
  let sql: Client;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase('es_scavenge');
    store = await PostgresEventStore.connect({ connectionString: db.url, registry: testEventRegistry });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    drop = db.drop;
  });
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await drop?.();
  });

  /** Five events; the first `old` of them recorded two hours ago. */
  async function stream(prefix: string, old: number): Promise<string> {
    const id = uniqueStream(prefix);
    for (let n = 0; n < 5; n++) await store.append(id, [thing(n)], 'any');
    await sql.query(
      `UPDATE hcn_events SET recorded_at = now() - interval '2 hours' WHERE stream_id = $1 AND revision < $2`,
      [id, old],
    );
    return id;
  }
  const stored = async (id: string) =>
    (
      await sql.query('SELECT revision FROM hcn_events WHERE stream_id = $1 ORDER BY revision', [id])
    ).rows.map((r) => Number(r.revision));
  const read = async (id: string) => (await store.readStream(id)).map((e) => e.revision);

  it('deletes exactly the hidden events, reads answer the same, the chain still verifies, and again deletes nothing', async () => {
    const byAge = await stream('t-age', 3);
    await store.setStreamMetadata(byAge, { maxAge: 3600 });
    const byCount = await stream('t-count', 0);
    await store.setStreamMetadata(byCount, { maxCount: 2 });
    const kept = await stream('t-kept', 5); // old, but no retention: never touched
    const before = await Promise.all([byAge, byCount, kept].map(read));
    expect(before).toEqual([
      [3, 4],
      [3, 4],
      [0, 1, 2, 3, 4],
    ]);

    const progress: number[] = [];
    const result = await store.scavenge((done) => progress.push(done.streams));
    expect(result).toEqual({ streams: 2, deleted: 6 });
    expect(progress).toEqual([2]);
    expect(await Promise.all([byAge, byCount, kept].map(stored))).toEqual(before);
    expect(await Promise.all([byAge, byCount, kept].map(read))).toEqual(before);
    const all = await store.readAll();
    expect(all.filter((e) => e.streamId !== kept).map((e) => [e.streamId, e.revision])).toEqual([
      [byAge, 3],
      [byAge, 4],
      [byCount, 3],
      [byCount, 4],
    ]);
    expect(await verifyHashChain(store)).toMatchObject({ ok: true, eventsChecked: 9 });
    await store.append(byAge, [thing(9)], 4); // appends go on at the stream's revision
    expect(await store.scavenge()).toEqual({ streams: 2, deleted: 0 });
  });
});
