import { describeWithPostgres } from '@hcn/testing';
import { usePostgresRig } from '../testing/postgres-rig';
import { thing, uniqueStream } from '../testing/test-events';
import { verifyHashChain } from '../verify/verify-hash-chain';

describeWithPostgres('PostgreSQL scavenge: deleting what retention hides', () => {
  const rig = usePostgresRig('es_scavenge');

  /** Five events; the first `old` of them recorded two hours ago. */
  async function stream(prefix: string, old: number): Promise<string> {
    const id = uniqueStream(prefix);
    for (let n = 0; n < 5; n++) await rig.store.append(id, [thing(n)], 'any');
    await rig.sql.query(
      `UPDATE hcn_events SET recorded_at = now() - interval '2 hours' WHERE stream_id = $1 AND revision < $2`,
      [id, old],
    );
    return id;
  }
  const stored = async (id: string) =>
    (
      await rig.sql.query('SELECT revision FROM hcn_events WHERE stream_id = $1 ORDER BY revision', [id])
    ).rows.map((r) => Number(r.revision));
  const read = async (id: string) => (await rig.store.readStream(id)).map((e) => e.revision);

  it('deletes exactly the hidden events, reads answer the same, the chain still verifies, and again deletes nothing', async () => {
    const byAge = await stream('t-age', 3);
    await rig.store.setStreamMetadata(byAge, { maxAge: 3600 });
    const byCount = await stream('t-count', 0);
    await rig.store.setStreamMetadata(byCount, { maxCount: 2 });
    const kept = await stream('t-kept', 5); // old, but no retention: never touched
    const before = await Promise.all([byAge, byCount, kept].map(read));
    expect(before).toEqual([
      [3, 4],
      [3, 4],
      [0, 1, 2, 3, 4],
    ]);

    const progress: number[] = [];
    const result = await rig.store.scavenge((done) => progress.push(done.streams));
    expect(result).toEqual({ streams: 2, deleted: 6 });
    expect(progress).toEqual([2]);
    expect(await Promise.all([byAge, byCount, kept].map(stored))).toEqual(before);
    expect(await Promise.all([byAge, byCount, kept].map(read))).toEqual(before);
    const all = await rig.store.readAll();
    expect(all.filter((e) => e.streamId !== kept).map((e) => [e.streamId, e.revision])).toEqual([
      [byAge, 3],
      [byAge, 4],
      [byCount, 3],
      [byCount, 4],
    ]);
    expect(await verifyHashChain(rig.store)).toMatchObject({ ok: true, eventsChecked: 9 });
    await rig.store.append(byAge, [thing(9)], 4); // appends go on at the stream's revision
    expect(await rig.store.scavenge()).toEqual({ streams: 2, deleted: 0 });
  });
});
