import { describeWithPostgres } from '@hcn/testing';
import { usePostgresRig } from '../testing/postgres-rig';
import { thing, uniqueStream } from '../testing/test-events';
import { verifyHashChain } from '../verify/verify-hash-chain';

describeWithPostgres('PostgreSQL hash chain: tampering with stored rows', () => {
  const rig = usePostgresRig('es_hash');
  beforeEach(async () => {
    await rig.sql.query('TRUNCATE hcn_events, hcn_streams');
  });

  /** Three streams of a few events each, written through both append paths. */
  async function seed(): Promise<string[]> {
    const streams = ['a', 'b', 'c'].map((x) => uniqueStream(`t-${x}`));
    await rig.store.append(
      streams[0],
      [thing(1, 'alpha'), thing(2, 'bravo'), thing(3, 'charlie')],
      'no_stream',
    );
    await rig.store.appendMany(
      streams.map((s, i) => ({ streamId: s, events: [thing(10 + i, 'delta')], expectedRevision: 'any' })),
    );
    await rig.store.append(streams[1], [thing(20, 'echo')], 0);
    return streams;
  }

  async function eventId(stream: string, revision: number): Promise<string> {
    const { rows } = await rig.sql.query(
      'SELECT event_id FROM hcn_events WHERE stream_id = $1 AND revision = $2',
      [stream, revision],
    );
    return rows[0].event_id as string;
  }

  it('reports exactly the event one byte of whose stored data was changed, and no other', async () => {
    const [a] = await seed();
    expect((await verifyHashChain(rig.store)).ok).toBe(true);
    const changed = await rig.sql.query(
      `UPDATE hcn_events SET data = replace(data::text, 'bravo', 'bravp')::jsonb
       WHERE stream_id = $1 AND revision = 1 RETURNING event_id`,
      [a],
    );
    expect(changed.rowCount).toBe(1);
    const report = await verifyHashChain(rig.store);
    expect(report.ok).toBe(false);
    expect(report.brokenCount).toBe(1);
    expect(report.firstBroken).toMatchObject({
      streamId: a,
      revision: 1,
      eventId: changed.rows[0].event_id,
      reason: 'content',
    });
    expect(report.eventsChecked).toBe(7);
    const one = await verifyHashChain(rig.store, { streamId: a });
    expect(one.broken.map((b) => b.eventId)).toEqual([changed.rows[0].event_id]);
  });

  it('finds a changed byte in the metadata, and an event type swapped', async () => {
    const [a, b] = await seed();
    await rig.sql.query(
      `UPDATE hcn_events SET metadata = jsonb_set(metadata, '{actor,id}', '"spec!"') WHERE stream_id = $1 AND revision = 2`,
      [a],
    );
    await rig.sql.query(
      `UPDATE hcn_events SET type = 'ThingHappenes' WHERE stream_id = $1 AND revision = 0`,
      [b],
    );
    const report = await verifyHashChain(rig.store);
    expect(report.broken.map((x) => [x.streamId, x.revision, x.reason])).toEqual([
      [a, 2, 'content'],
      [b, 0, 'content'],
    ]);
  });

  it('finds a rewritten prevHash or hash, reporting the event whose link no longer holds', async () => {
    const [a, b] = await seed();
    await rig.sql.query(
      `UPDATE hcn_events SET prev_hash = sha256('forged') WHERE stream_id = $1 AND revision = 2`,
      [a],
    );
    await rig.sql.query(
      `UPDATE hcn_events SET hash = sha256('forged') WHERE stream_id = $1 AND revision = 1`,
      [b],
    );
    const report = await verifyHashChain(rig.store);
    expect(report.broken.map((x) => [x.streamId, x.revision, x.reason])).toEqual([
      [a, 2, 'link'],
      [b, 1, 'content'],
    ]);
    expect(report.firstBroken).toMatchObject({ eventId: await eventId(a, 2) });
  });

  it('finds a deleted event, a deleted head and a stripped hash in streams without retention', async () => {
    const [a, b, c] = await seed();
    await rig.sql.query('DELETE FROM hcn_events WHERE stream_id = $1 AND revision = 1', [a]);
    await rig.sql.query('DELETE FROM hcn_events WHERE stream_id = $1 AND revision = 0', [b]);
    await rig.sql.query(
      'UPDATE hcn_events SET prev_hash = NULL, hash = NULL WHERE stream_id = $1 AND revision = 0',
      [c],
    );
    await rig.store.append(c, [thing(99)], 'any');
    const report = await verifyHashChain(rig.store);
    const found = report.broken.map((x) => [x.streamId, x.revision, x.reason]);
    expect(found).toEqual([
      [a, 2, 'gap'],
      [b, 1, 'head-missing'],
      [c, 1, 'link'],
    ]);
    // c's first event, stripped of its hash, reads like one written before hashing; its successor still names
    // the stripped hash as prevHash, so the chain breaks there
    expect(report.unhashedEvents).toBe(1);
  });

  it('links events of the set-based appendMany path (called directly, so no fallback can hide a failure)', async () => {
    const [old, fresh, declared] = ['old', 'fresh', 'declared'].map((x) => uniqueStream(`t-set-${x}`));
    await rig.store.append(old, [thing(1)], 'no_stream');
    await rig.store.setStreamMetadata(declared, { maxAge: 3600 });
    for (let round = 0; round < 2; round++) {
      const requests = [old, fresh, declared].map((stream, i) => {
        const [e] = rig.store.prepare([thing(10 * i + round)]);
        const event = { id: e.eventId, type: e.type, data: e.data, meta: e.metadata, ch: e.contentHash };
        return { stream, expected: 'any', events: [event] };
      });
      const { rows } = await rig.sql.query('SELECT * FROM hcn_append_many($1::jsonb) ORDER BY out_index', [
        JSON.stringify(requests),
      ]);
      expect(rows.map((r) => Number(r.out_revision))).toEqual([round + 1, round, round]);
    }
    const report = await verifyHashChain(rig.store);
    expect(report).toMatchObject({ ok: true, eventsChecked: 7, streamsChecked: 3 });
  });

  it('keeps the canonical form through jsonb: numbers, unicode and key order', async () => {
    const stream = uniqueStream('t-json');
    const notes = ['zürich ✓ 🚀 \u2028 "quoted" \\ back', 'ünïcödé', '{"b":1,"a":2}', '1e21'];
    await rig.store.append(
      stream,
      notes.map((n, i) => thing(i * 1_000_000_007, n)),
      'no_stream',
    );
    await rig.store.append(stream, [thing(-0), thing(Number.MAX_SAFE_INTEGER)], 'any');
    expect(await verifyHashChain(rig.store, { streamId: stream })).toMatchObject({
      ok: true,
      eventsChecked: 6,
    });
  });

  it('starts streams written before migration 5 at their first hashed event, chained from the genesis hash', async () => {
    const stream = uniqueStream('t-legacy');
    await rig.store.append(stream, [thing(1), thing(2)], 'no_stream');
    await rig.sql.query('UPDATE hcn_events SET prev_hash = NULL, hash = NULL WHERE stream_id = $1', [stream]);
    await rig.sql.query('UPDATE hcn_streams SET last_hash = NULL WHERE stream_id = $1', [stream]);
    await rig.store.append(stream, [thing(3)], 1);
    const report = await verifyHashChain(rig.store, { streamId: stream });
    expect(report).toMatchObject({ ok: true, unhashedEvents: 2, eventsChecked: 1 });
  });
});
