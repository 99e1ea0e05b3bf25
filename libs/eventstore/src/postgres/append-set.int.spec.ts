import { describeWithPostgres } from '@hcn/testing';
import { usePostgresRig } from '../testing/postgres-rig';
import { thing, uniqueStream } from '../testing/test-events';
import { verifyHashChain } from '../verify/verify-hash-chain';

describeWithPostgres('PostgreSQL hcn_append_set (appendMany over distinct streams)', () => {
  const rig = usePostgresRig('es_append_set');
  beforeEach(async () => {
    await rig.sql.query('TRUNCATE hcn_events, hcn_streams');
  });

  /** One request as the adapter sends it: events prepared by the store (content hash included). */
  function request(stream: string, expected: string, notes: number[]) {
    const events = rig.store.prepare(notes.map((n) => thing(n))).map((e) => ({
      id: e.eventId,
      type: e.type,
      data: e.data,
      meta: e.metadata,
      ch: e.contentHash,
    }));
    return { stream, expected, events };
  }

  /** Calls the SQL function directly, so that no fallback of appendMany can hide a failure. */
  async function appendSet(requests: unknown[]) {
    const { rows } = await rig.sql.query(
      'SELECT out_index, out_revision::int AS revision FROM hcn_append_set($1::jsonb) ORDER BY out_index',
      [JSON.stringify(requests)],
    );
    return rows.map((r) => r.revision);
  }

  const count = async () => Number((await rig.sql.query('SELECT count(*) AS n FROM hcn_events')).rows[0].n);

  it('appends several events to each stream with every kind of expectation, chained as single appends are', async () => {
    const [fresh, exact, exists, any] = ['fresh', 'exact', 'exists', 'any'].map((x) =>
      uniqueStream(`t-${x}`),
    );
    await rig.store.append(exact, [thing(1), thing(2)], 'no_stream');
    await rig.store.append(exists, [thing(3)], 'no_stream');
    const revisions = await appendSet([
      request(fresh, 'no_stream', [10, 11, 12]),
      request(exact, '1', [20, 21]),
      request(exists, 'stream_exists', [30]),
      request(any, 'any', [40, 41]),
    ]);
    expect(revisions).toEqual([2, 3, 1, 1]);
    expect((await rig.store.readStream(exact)).map((e) => (e.data as { n: number }).n)).toEqual([
      1, 2, 20, 21,
    ]);
    // the kept chain head is right: a later single append links on to it
    await rig.store.append(fresh, [thing(13)], 2);
    expect(await verifyHashChain(rig.store)).toMatchObject({
      ok: true,
      eventsChecked: 12,
      streamsChecked: 4,
    });
  });

  it.each([
    ['no_stream on a stream that exists', 'no_stream'],
    ['an exact revision that is not the current one', '0'],
  ])('refuses the whole call and writes nothing for %s (HC001)', async (_, expected) => {
    const [held, other] = ['held', 'other'].map((x) => uniqueStream(`t-${x}`));
    await rig.store.append(held, [thing(1), thing(2)], 'no_stream');
    const before = await count();
    await expect(
      appendSet([request(other, 'no_stream', [5]), request(held, expected, [6])]),
    ).rejects.toMatchObject({
      code: 'HC001',
    });
    expect(await count()).toBe(before);
  });

  it('refuses stream_exists on a stream with no events (HC001)', async () => {
    await expect(appendSet([request(uniqueStream('t-none'), 'stream_exists', [1])])).rejects.toMatchObject({
      code: 'HC001',
    });
  });

  it('refuses a stream named twice (HC004); appendMany then appends request by request', async () => {
    const stream = uniqueStream('t-twice');
    await expect(
      appendSet([request(stream, 'no_stream', [1]), request(stream, '0', [2])]),
    ).rejects.toMatchObject({ code: 'HC004' });
    const outcomes = await rig.store.appendMany([
      { streamId: stream, events: [thing(1)], expectedRevision: 'no_stream' },
      { streamId: stream, events: [thing(2)], expectedRevision: 0 },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(await rig.store.readStream(stream)).toHaveLength(2);
  });

  it('gives each request its own outcome through appendMany when one expectation is wrong', async () => {
    const [good, bad] = ['good', 'bad'].map((x) => uniqueStream(`t-${x}`));
    await rig.store.append(bad, [thing(1)], 'no_stream');
    const outcomes = await rig.store.appendMany([
      { streamId: good, events: [thing(2), thing(3)], expectedRevision: 'no_stream' },
      { streamId: bad, events: [thing(4)], expectedRevision: 5 },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false]);
    expect(await rig.store.readStream(good)).toHaveLength(2);
    expect(await rig.store.readStream(bad)).toHaveLength(1);
  });
});
