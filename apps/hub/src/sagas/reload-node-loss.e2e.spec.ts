import { nodeStream, workloadStream } from '@hcn/contracts';
import { nodeDecider, workloadDecider } from '@hcn/domain';
import { PostgresEventStore } from '@hcn/eventstore';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { CommandEngine, requestContext } from '@hcn/commands';
import { allocationIdFor } from '../scheduling/decision-record';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

const context = () => requestContext({ kind: 'system', id: 'spec' }, new Date());

describeWithPostgres(
  'workload saga: a node lost while a workload is read back (hub, real PostgreSQL)',
  () => {
    let h: HubHarness;
    let nodeId: string;
    /** Writes as agents and another hub would: its own connection, so holding up the hub's reads leaves it alone. */
    let writer: PostgresEventStore;
    beforeAll(async () => {
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
      writer = await PostgresEventStore.connect({ connectionString: h.database.url });
      ({ nodeId } = await registerNode(h, { cpuCores: 8, memoryBytes: 32 * 2 ** 30 }));
    });
    afterAll(async () => {
      await writer?.close();
      await h?.close();
    });

    const onWorkload = (workloadId: string, command: Parameters<typeof workloadDecider.decide>[0]) =>
      new CommandEngine(writer, workloadDecider).handle(workloadStream(workloadId), command, context());

    it('marks the allocation lost when its node went offline before the read returned', async () => {
      const submitted = await h.request('POST', '/v1/workloads', processSpec({ name: 'reloaded' }));
      expect(submitted.status).toBe(201);
      const { workloadId } = submitted.body;
      const first = allocationIdFor(workloadId, 0, 0);
      const at = () => new Date().toISOString();
      // the agent reports it started and completed: the workload has ended and the saga lets it go
      await onWorkload(workloadId, { type: 'RecordStarted', allocationId: first, nodeId, pid: 1, at: at() });
      const end = { allocationId: first, nodeId, outcome: 'completed', exitCode: 0, signal: null } as const;
      await onWorkload(workloadId, {
        type: 'RecordEnded',
        ...end,
        reason: 'exit 0',
        endedBy: 'not-running',
        at: at(),
      });
      await eventuallyExpect(async () => expect(h.hub.saga.remembers(workloadId)).toBe(false));

      // reading the stream back is held up until the node has gone offline
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const readStream = h.store.readStream.bind(h.store);
      h.store.readStream = async (streamId, options) => {
        if (streamId === workloadStream(workloadId)) await held;
        return readStream(streamId, options);
      };
      try {
        // another hub restarts it and places the new attempt on the same node at once
        await onWorkload(workloadId, { type: 'RequestRestart', reason: 'spec' });
        const second = allocationIdFor(workloadId, 0, 1);
        const placed = { kind: 'placed' as const, allocationId: second, nodeId, domainId: 'site-a' };
        const decision = { instance: 0, attempt: 1, decision: { hops: [], topK: 5 }, outcome: placed };
        await onWorkload(workloadId, { type: 'RecordDecision', decision });
        const offline = {
          type: 'CheckLiveness',
          nodeId,
          now: at(),
          ttlSeconds: 1,
          lastSeenAt: '2000-01-01T00:00:00Z',
        };
        await new CommandEngine(writer, nodeDecider).handle(nodeStream(nodeId), offline as never, context());
        await new Promise((r) => setTimeout(r, 1000)); // the saga has seen the node go offline meanwhile
      } finally {
        release();
        h.store.readStream = readStream;
      }
      await eventuallyExpect(async () => {
        const lost = (await h.store.readStream(workloadStream(workloadId))).filter(
          (e) => e.type === 'AllocationLost',
        );
        expect(lost.map((e) => e.data.allocationId)).toEqual([allocationIdFor(workloadId, 0, 1)]);
      });
    });
  },
);
