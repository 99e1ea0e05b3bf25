import { NewEvent, quotaStream, workloadSpecSchema, workloadStream } from '@hcn/contracts';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ConcurrencyError } from '../errors';
import { PostgresEventStore } from './postgres-event-store';

const actor = { kind: 'user' as const, id: 'spec' };

/** A submission whose stored form leaves out the spec's defaults and the correlation (its own workload). */
function submitted(workloadId: string): NewEvent {
  const spec = workloadSpecSchema.parse({
    name: 'job',
    command: 'sleep',
    resources: { cpuMillis: 500, memoryBytes: 1000 },
  });
  return {
    eventId: randomUUID(),
    type: 'WorkloadSubmitted',
    data: { workloadId, spec, idempotencyKey: null },
    metadata: {
      correlationId: workloadId,
      causationId: randomUUID(),
      actor,
      occurredAt: '2026-11-26T15:00:00.000Z',
    },
  };
}

/** A namespace's quota hold for `workloadId`. */
function consumed(workloadId: string): NewEvent {
  return {
    eventId: randomUUID(),
    type: 'QuotaConsumed',
    data: {
      namespace: 'team',
      workloadId,
      resources: { cpuMillis: 500, memoryBytes: 1000, accelerators: 0 },
    },
    metadata: {
      correlationId: workloadId,
      causationId: workloadId,
      actor,
      occurredAt: '2026-11-26T15:00:00.000Z',
    },
  };
}

describeWithPostgres('PostgresEventStore: its own reads of what it just appended (RecentWrites)', () => {
  let db: TestDatabase;
  let writer: PostgresEventStore;
  let other: PostgresEventStore;
  let sql: Client;

  beforeAll(async () => {
    db = await createTestDatabase('es_recent');
    writer = await PostgresEventStore.connect({ connectionString: db.url });
    other = await PostgresEventStore.connect({ connectionString: db.url });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql.end();
    await writer.close();
    await other.close();
    await db.drop();
  });

  /** Overwrites the stored data of `stream`'s events with something no schema accepts. */
  const corrupt = (stream: string) =>
    sql.query(`UPDATE hcn_events SET data = '{"workloadId":1}' WHERE stream_id = $1`, [stream]);

  it('reads back what it validated on write, equal to a read that validates the row', async () => {
    const workloadId = randomUUID();
    const stream = workloadStream(workloadId);
    await writer.append(stream, [submitted(workloadId)], 'no_stream');
    const validated = await other.readStream(stream); // another process: parses the stored form
    const own = await writer.readStream(stream);
    expect(own).toEqual(validated);
    expect(own[0].metadata).toMatchObject({ correlationId: workloadId, schemaVersion: 1 });
    expect(own[0].metadata.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes the written content once: a second read, and any other store, validate the row', async () => {
    const workloadId = randomUUID();
    const stream = workloadStream(workloadId);
    await writer.append(stream, [submitted(workloadId)], 'no_stream');
    await corrupt(stream);
    const own = await writer.readStream(stream);
    expect(own[0].data).toMatchObject({ workloadId, spec: { name: 'job' } });
    await expect(writer.readStream(stream)).rejects.toMatchObject({ code: 'EVENT.SCHEMA_INVALID' });
    await expect(other.readStream(stream)).rejects.toMatchObject({ code: 'EVENT.SCHEMA_INVALID' });
  });

  it('keeps what one appendMany stored, for every stream of it', async () => {
    const workloads = [randomUUID(), randomUUID()];
    const outcomes = await writer.appendMany([
      {
        streamId: workloadStream(workloads[0]),
        events: [submitted(workloads[0])],
        expectedRevision: 'no_stream',
      },
      {
        streamId: workloadStream(workloads[1]),
        events: [submitted(workloads[1])],
        expectedRevision: 'no_stream',
      },
    ]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    for (const workloadId of workloads) await corrupt(workloadStream(workloadId));
    for (const workloadId of workloads) {
      const [event] = await writer.readStream(workloadStream(workloadId));
      expect(event.data).toMatchObject({ workloadId });
    }
  });

  it('keeps nothing of an append that stored nothing (refused, or a retry of events already stored)', async () => {
    const workloadId = randomUUID();
    const stream = quotaStream(`team-${workloadId.slice(0, 8)}`);
    const first = consumed(workloadId);
    await writer.append(stream, [first], 'no_stream');
    await writer.readStream(stream); // takes what the first append kept
    const sameIds = { ...first, data: { ...(first.data as object), namespace: 'other' } };
    await writer.append(stream, [sameIds], 'no_stream'); // a retry: the stored event answers, nothing is stored
    await expect(writer.append(stream, [consumed(workloadId)], 5)).rejects.toBeInstanceOf(ConcurrencyError);
    const events = await writer.readStream(stream);
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ namespace: 'team' })]);
  });
});
