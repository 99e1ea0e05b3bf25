import { AgentCredentials } from '../auth/agent-credentials';
import { Logger } from '@nestjs/common';
import { CommandSigner } from './command-signer';
import { EventDataOf, NewEvent, WorkloadSpec, workloadSpecSchema, workloadStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { MemoryMessageBus, MessageBus, TopicMessages } from '@hcn/messaging';
import { openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { specEvent as event } from '../../../projector/src/testing/scenario-log';
import { HubMetrics } from '../common/metrics';
import { Dispatcher } from './dispatcher';

/** The in-process bus, recording each command published and failing the next publish when told to. */
class RecordingBus extends MemoryMessageBus {
  readonly published: string[] = [];
  /** The topic each command went to, by command id. */
  readonly topicOf = new Map<string, string>();
  failNext = false;

  override async publishAll(batches: readonly TopicMessages[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('broker unreachable (spec)');
    }
    await super.publishAll(batches);
    for (const batch of batches)
      for (const m of batch.messages) {
        const commandId = (JSON.parse(String(m.value)) as { commandId: string }).commandId;
        this.published.push(commandId);
        this.topicOf.set(commandId, batch.topic);
      }
  }
}

const spec: WorkloadSpec = workloadSpecSchema.parse({
  name: 'w',
  namespace: 'team',
  command: 'true',
  resources: { cpuMillis: 100, memoryBytes: 2 ** 20 },
});

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

/**
 * A dispatcher over a fresh database and a recording bus, started before the suite's tests and stopped after
 * them; call the returned function (in a `beforeAll`) for its parts.
 */
function dispatcherRig(name: string, cacheLimit?: number) {
  let parts: { store: PostgresEventStore; bus: RecordingBus; dispatcher: Dispatcher } | undefined;
  let database: TestDatabase;
  let db: DataSource;
  beforeAll(async () => {
    database = await createTestDatabase(name);
    const store = await PostgresEventStore.connect({ connectionString: database.url });
    db = await openReadModels(database.url, 2);
    const bus = new RecordingBus();
    const dispatcher = new Dispatcher(
      store,
      bus as MessageBus,
      db,
      new HubMetrics(),
      new CommandSigner(new AgentCredentials('spec-agent-secret-0123456789-0123456789'), () => new Date()),
      cacheLimit,
    );
    await dispatcher.start();
    parts = { store, bus, dispatcher };
  });
  afterAll(async () => {
    await parts?.dispatcher.stop();
    await parts?.bus.close();
    await db?.destroy();
    await parts?.store.close();
    await database?.drop();
  });
  return () => {
    if (!parts) throw new Error('dispatcher rig not started');
    return parts;
  };
}

describeWithPostgres(
  'dispatcher: placements published as their append returns, once (real PostgreSQL)',
  () => {
    const rig = dispatcherRig('h_dispatch');
    let store: PostgresEventStore;
    let bus: RecordingBus;
    let dispatcher: Dispatcher;
    beforeAll(() => ({ store, bus, dispatcher } = rig()));

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

    it('does not publish a placement early once the log has delivered it first (a slow append return)', async () => {
      const placed = placement();
      await append(store, placed);
      await until(() => bus.published.includes(placed.id));
      dispatcher.placed(placed.id, placed.data, spec); // the appending handler resumes only now
      const marker = placement();
      dispatcher.placed(marker.id, marker.data, spec); // published early, after any early publish of the first
      await until(() => bus.published.includes(marker.id));
      expect(bus.published.filter((id) => id === placed.id)).toHaveLength(1);
    });

    it('relays a placement whose early publish failed', async () => {
      const placed = placement();
      bus.failNext = true;
      const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      dispatcher.placed(placed.id, placed.data, spec);
      await append(store, placed);
      await until(() => bus.published.includes(placed.id));
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('broker unreachable (spec)'));
      errors.mockRestore();
      expect(bus.published.filter((id) => id === placed.id)).toHaveLength(1);
    });
  },
);

describeWithPostgres('dispatcher: commands whose spec or domain it no longer keeps (real PostgreSQL)', () => {
  // keeps one spec and five domains: the rest must come from the streams
  const rig = dispatcherRig('h_dispatch_small', 1);
  let store: PostgresEventStore;
  let bus: RecordingBus;
  beforeAll(() => ({ store, bus } = rig()));

  it('reads the spec of a placement from the workload stream once a later submission pushed it out', async () => {
    const first = placement();
    const second = placement();
    const [submittedFirst, placedFirst] = first.events;
    await store.append(workloadStream(first.data.workloadId), [submittedFirst], 'no_stream');
    await append(store, second); // its submission takes the one place kept for specs
    await store.append(workloadStream(first.data.workloadId), [placedFirst], 0);
    await until(() => bus.published.includes(first.id));
    expect(bus.published.filter((id) => id === first.id)).toHaveLength(1);
  });

  it("sends a stop to the node's domain read from the node stream once the allocation's domain was pushed out", async () => {
    const stopped = placement();
    const registration = {
      nodeId: stopped.data.nodeId,
      // the node has since moved to site-b: a command sent there shows its domain came from the node stream
      domainId: 'site-b',
      hostname: 'h',
      arch: 'x64',
      os: 'linux',
      cpuCores: 4,
      memoryBytes: 2 ** 30,
      diskBytes: 2 ** 30,
      labels: {},
      isHead: false,
      agentVersion: 'spec',
    };
    await store.append(`node-${stopped.data.nodeId}`, [event('NodeRegistered', registration)], 'no_stream');
    await append(store, stopped);
    for (let i = 0; i < 6; i++) await append(store, placement()); // pushes its domain out of the five kept
    const stop = event('AllocationStopRequested', {
      workloadId: stopped.data.workloadId,
      allocationId: stopped.data.allocationId,
      nodeId: stopped.data.nodeId,
      gracePeriodSeconds: 5,
      reason: 'spec',
    });
    await store.append(workloadStream(stopped.data.workloadId), [stop], 1);
    await until(() => bus.published.includes(stop.eventId));
    expect(bus.topicOf.get(stop.eventId)).toBe('hcn.commands.site-b');
  });
});
