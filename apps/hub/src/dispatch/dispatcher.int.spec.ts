import { EventDataOf, NewEvent, WorkloadSpec, workloadSpecSchema, workloadStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { MemoryMessageBus, MessageBus, TopicMessages } from '@hcn/messaging';
import { openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { HubMetrics } from '../common/metrics';
import { Dispatcher } from './dispatcher';

/** The in-process bus, recording each command published and failing the next publish when told to. */
class RecordingBus extends MemoryMessageBus {
  readonly published: string[] = [];
  failNext = false;

  override async publishAll(batches: readonly TopicMessages[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('broker unreachable (spec)');
    }
    await super.publishAll(batches);
    for (const batch of batches)
      for (const m of batch.messages)
        this.published.push((JSON.parse(String(m.value)) as { commandId: string }).commandId);
  }
}

const spec: WorkloadSpec = workloadSpecSchema.parse({
  name: 'w',
  namespace: 'team',
  command: 'true',
  resources: { cpuMillis: 100, memoryBytes: 2 ** 20 },
});

function event(type: string, data: unknown): NewEvent {
  return {
    eventId: randomUUID(),
    type,
    data,
    metadata: {
      correlationId: 's',
      causationId: 's',
      actor: { kind: 'system', id: 's' },
      occurredAt: new Date().toISOString(),
    },
  };
}

/** A submission and its placement, not appended yet. */
function placement(): { id: string; data: EventDataOf<'AllocationPlaced'>; events: NewEvent[] } {
  const workloadId = randomUUID();
  const data: EventDataOf<'AllocationPlaced'> = {
    workloadId,
    allocationId: randomUUID(),
    instance: 0,
    attempt: 0,
    generation: 1,
    nodeId: randomUUID(),
    domainId: 'site-a',
    resources: spec.resources,
  };
  const placed = event('AllocationPlaced', data);
  const submitted = event('WorkloadSubmitted', { workloadId, spec, idempotencyKey: null });
  return { id: placed.eventId, data, events: [submitted, placed] };
}

async function append(store: PostgresEventStore, p: ReturnType<typeof placement>): Promise<void> {
  await store.append(workloadStream(p.data.workloadId), p.events, 'no_stream');
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
};

describeWithPostgres(
  'dispatcher: placements published as their append returns, once (real PostgreSQL)',
  () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let db: DataSource;
    let bus: RecordingBus;
    let dispatcher: Dispatcher;

    beforeAll(async () => {
      database = await createTestDatabase('h_dispatch');
      store = await PostgresEventStore.connect({ connectionString: database.url });
      db = await openReadModels(database.url, 2);
      bus = new RecordingBus();
      dispatcher = new Dispatcher(store, bus as MessageBus, db, new HubMetrics());
      await dispatcher.start();
    });
    afterAll(async () => {
      await dispatcher.stop();
      await bus.close();
      await db.destroy();
      await store.close();
      await database.drop();
    });

    it('relays a placement from the log when nobody published it early', async () => {
      const placed = placement();
      await append(store, placed);
      await until(() => bus.published.includes(placed.id));
      expect(bus.published.filter((id) => id === placed.id)).toHaveLength(1);
    });

    it('publishes an early placement at once and does not publish it again when the log delivers it', async () => {
      const placed = placement();
      dispatcher.placed(placed.id, placed.data, spec);
      await until(() => bus.published.includes(placed.id));
      expect(bus.published).toContain(placed.id); // published before the log holds it
      await append(store, placed);
      const marker = placement(); // appended later: once it is relayed, the first one was read too
      await append(store, marker);
      await until(() => bus.published.includes(marker.id));
      expect(bus.published.filter((id) => id === placed.id)).toHaveLength(1);
    });

    it('relays a placement whose early publish failed', async () => {
      const placed = placement();
      bus.failNext = true;
      const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      dispatcher.placed(placed.id, placed.data, spec);
      await append(store, placed);
      await until(() => bus.published.includes(placed.id));
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('broker unreachable (spec)'));
      errors.mockRestore();
      expect(bus.published.filter((id) => id === placed.id)).toHaveLength(1);
    });
  },
);
