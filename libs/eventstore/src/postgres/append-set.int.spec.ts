import { describeWithPostgres, eventually } from '@hcn/testing';
import { Client } from 'pg';
import { usePostgresRig } from '../testing/postgres-rig';
import { numberOf, thing, uniqueStream } from '../testing/test-events';
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
    expect((await rig.store.readStream(exact)).map(numberOf)).toEqual([1, 2, 20, 21]);
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

  it('runs beside per-stream loops over the same streams without deadlock, lost events or a broken chain', async () => {
    const streams = ['a', 'b', 'c', 'd', 'e'].map((x) => uniqueStream(`t-mix-${x}`));
    await rig.store.append(streams[0], [thing(0)], 'no_stream');
    const started = Date.now();
    const calls = Array.from({ length: 16 }, (_, i) => {
      // every call names every stream; odd calls name the first one twice, so they take the per-stream loop, and
      // the even ones take hcn_append_set: a set call creating a stream that a loop call waits for, while the loop
      // holds a stream the set call needs next, would deadlock
      const requests = streams.map((streamId, j) => ({
        streamId,
        events: [thing(100 * i + j), thing(100 * i + j + 50)],
        expectedRevision: 'any' as const,
      }));
      if (i % 2 === 1) requests.push({ ...requests[0], events: [thing(100 * i + 99)] });
      return rig.store.appendMany(requests);
    });
    const outcomes = (await Promise.all(calls)).flat();
    expect(outcomes.every((o) => o.ok)).toBe(true);
    // a deadlock would have cost PostgreSQL's deadlock_timeout (1 s) before the fallback
    expect(Date.now() - started).toBeLessThan(1000);
    const written = outcomes.length * 2 - 8; // each odd call's repeated request carries one event
    expect(await count()).toBe(1 + written);
    expect(await verifyHashChain(rig.store)).toMatchObject({ ok: true, eventsChecked: 1 + written });
  });

  it('checks expectations after waiting for a held stream: one created meanwhile refuses no_stream (HC001)', async () => {
    const [held, created] = ['a', 'b'].map((x) => uniqueStream(`t-order-${x}`)).sort();
    await rig.store.append(held, [thing(1)], 'no_stream');
    const loop = new Client({ connectionString: rig.url });
    const set = new Client({ connectionString: rig.url });
    await Promise.all([loop.connect(), set.connect()]);
    try {
      const appendOne = (stream: string, n: number) =>
        loop.query('SELECT * FROM hcn_append($1, $2, $3::jsonb)', [
          stream,
          'any',
          JSON.stringify(request(stream, 'any', [n]).events),
        ]);
      await loop.query('BEGIN');
      await appendOne(held, 2); // the loop holds `held`
      const setPid = (await set.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      // the outcome is taken at once, so an early refusal is reported by the assertion below, not as an
      // unhandled rejection while the spec still waits
      let early = true;
      const setOutcome = set
        .query('SELECT * FROM hcn_append_set($1::jsonb)', [
          JSON.stringify([request(held, 'any', [3]), request(created, 'no_stream', [4])]),
        ])
        .then(
          () => ({ settled: 'appended', early: false }),
          (error: { code?: string; message?: string }) => ({
            settled: `${error.code}: ${error.message}`,
            early,
          }),
        );
      await eventually('the set call waits for the loop transaction holding the stream', async () => {
        const { rows } = await rig.sql.query(
          'SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE pid = $1',
          [setPid],
        );
        return rows[0]?.wait_event_type === 'Lock' && rows[0]?.wait_event === 'transactionid';
      });
      early = false;
      // the set call has not created `created` while it waits for `held`, so this does not wait for it
      await appendOne(created, 5);
      await loop.query('COMMIT');
      // `created` exists by now; refused after the wait, not before it
      expect(await setOutcome).toEqual({ settled: 'HC001: wrong expected revision', early: false });
    } finally {
      await Promise.all([loop.end(), set.end()]);
    }
    expect((await rig.store.readStream(held)).map(numberOf)).toEqual([1, 2]);
  });
});
