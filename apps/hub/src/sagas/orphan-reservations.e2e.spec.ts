import { nodeStream, quotaStream, workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { requestContext, toNewEvents } from '@hcn/commands';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

const ORPHAN_REASON = 'its workload was never recorded';

describeWithPostgres(
  'submission and placement in one append; orphaned reservations (hub, real PostgreSQL)',
  () => {
    let h: HubHarness;
    let nodeId: string;
    beforeAll(async () => {
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', HCN_ORPHAN_SWEEP_SECONDS: '0.2' });
      ({ nodeId } = await registerNode(h, { cpuCores: 8, memoryBytes: 32 * 2 ** 30 }));
    });
    afterAll(async () => h?.close());

    const releasesOn = async (node: string) =>
      (await h.store.readStream(nodeStream(node)))
        .filter((e) => e.type === 'CapacityReleased')
        .map((e) => e.data);

    it('appends the submission, the delegation chain and the placement together (one commit)', async () => {
      const response = await h.request('POST', '/v1/workloads', processSpec({ replicas: 2 }));
      expect(response.status).toBe(201);
      expect(response.body.events).toEqual(['WorkloadSubmitted']);
      const events = await h.store.readStream(workloadStream(response.body.workloadId));
      const lastPlaced = events.map((e) => e.type).lastIndexOf('AllocationPlaced');
      const upToPlacements = events.slice(0, lastPlaced + 1);
      expect(upToPlacements.map((e) => e.type).filter((t) => t !== 'WorkloadDelegated')).toEqual([
        'WorkloadSubmitted',
        'AllocationPlaced',
        'AllocationPlaced',
      ]);
      expect(new Set(upToPlacements.map((e) => e.position.commit)).size).toBe(1);
      expect(response.body.revision).toBe(upToPlacements.length - 1);
    });

    it('answers concurrent submissions with one idempotency key with one workload, placed once', async () => {
      const spec = processSpec({ name: 'same-key' });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          h.request('POST', '/v1/workloads', spec, { 'idempotency-key': 'k-race' }),
        ),
      );
      expect(answers.every((a) => a.status === 201 || a.status === 200)).toBe(true);
      const ids = new Set(answers.map((a) => a.body.workloadId));
      expect(ids.size).toBe(1);
      const [workloadId] = ids;
      const events = await h.store.readStream(workloadStream(workloadId));
      expect(events.filter((e) => e.type === 'WorkloadSubmitted')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'AllocationPlaced')).toHaveLength(1);
      const nodeEvents = await h.store.readStream(nodeStream(nodeId));
      const mine = nodeEvents.filter((e) => 'workloadId' in e.data && e.data.workloadId === workloadId);
      expect(mine.filter((e) => e.type === 'CapacityReserved')).toHaveLength(1);
    });

    it('gives back a reservation whose workload never came to be, and only that one', async () => {
      const kept = await h.request('POST', '/v1/workloads', processSpec());
      expect(kept.status).toBe(201);
      const keptAllocation = (await h.store.readStream(workloadStream(kept.body.workloadId)))
        .map((e) => ('allocationId' in e.data ? e.data.allocationId : undefined))
        .find((allocationId) => allocationId);
      // a hub that reserved and died before its submission's append: the node stream holds a reservation that no
      // workload stream records
      const orphan = { allocationId: randomUUID(), workloadId: randomUUID() };
      const reserved = {
        type: 'CapacityReserved',
        data: { nodeId, ...orphan, resources: { cpuMillis: 1000, memoryBytes: 2 ** 30, accelerators: 0 } },
      };
      const context = requestContext({ kind: 'system', id: 'test' }, new Date());
      await h.store.append(nodeStream(nodeId), toNewEvents([reserved], context), 'any');
      await eventuallyExpect(async () => {
        expect(await releasesOn(nodeId)).toContainEqual(
          expect.objectContaining({ allocationId: orphan.allocationId, reason: ORPHAN_REASON }),
        );
      }, 10000);
      await new Promise((r) => setTimeout(r, 1000)); // five more sweeps
      const released = (await releasesOn(nodeId)).map((r) => r.allocationId);
      expect(released.filter((id) => id === orphan.allocationId)).toHaveLength(1);
      expect(released).not.toContain(keptAllocation);
      const node = await h.request('GET', `/v1/nodes/${nodeId}`);
      expect(node.status).toBe(200);
    });

    it('gives back a quota hold whose workload never came to be, and keeps the holds of real workloads', async () => {
      const kept = await h.request('POST', '/v1/workloads', processSpec({ namespace: 'team-q' }));
      expect(kept.status).toBe(201);
      // a hub that held quota and died before its submission's append
      const orphan = randomUUID();
      const resources = {
        cpuMillis: 100,
        memoryBytes: 2 ** 20,
        accelerators: 0,
        acceleratorMemoryBytes: 0,
        computeUnits: 0,
      };
      const held = { type: 'QuotaConsumed', data: { namespace: 'team-q', workloadId: orphan, resources } };
      const context = requestContext({ kind: 'system', id: 'test' }, new Date());
      await h.store.append(quotaStream('team-q'), toNewEvents([held], context), 'any');
      const releases = async () =>
        (await h.store.readStream(quotaStream('team-q')))
          .filter((e) => e.type === 'QuotaReleased')
          .map((e) => e.data);
      await eventuallyExpect(async () => {
        expect(await releases()).toContainEqual(
          expect.objectContaining({ workloadId: orphan, reason: ORPHAN_REASON }),
        );
      }, 10000);
      await new Promise((r) => setTimeout(r, 1000)); // five more sweeps
      expect((await releases()).map((r) => r.workloadId)).toEqual([orphan]);
    });
  },
);
