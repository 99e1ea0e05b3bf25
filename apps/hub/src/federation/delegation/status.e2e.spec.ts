import { siteSummaryOf } from '@hcn/cluster';
import { workloadStream } from '@hcn/contracts';
import { foldRecorded, workloadDecider } from '@hcn/domain';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Federation } from '../federation';
import { DELEGATION_STATUS_PURPOSE, sealSigned } from './signed-message';
import { statusReport } from './status-report';
import { TwoSites, codeOf } from './two-sites.testing';

/**
 * Status flows back and partitions (issue 21 items 4-5), a parent and a child hub on their own databases
 * (`TwoSites`). The child reports each delegated workload's status back; the parent records it on its own stream
 * through the workload decider (started, ended; a repeat appends nothing) and reads its output there on request,
 * forwards a user's stop, cancels a late acceptance; a child silent past its TTL leaves taken delegations unknown
 * and in-flight ones rejected, and once back it is reconciled (unknown -> running; what an operator gave up
 * meanwhile is cancelled there).
 */
describeWithPostgres('federation: status flows back from a child site, and partitions', () => {
  const sites = new TwoSites();
  let silent: Server | undefined;
  const sockets: Socket[] = [];

  beforeAll(() => sites.start(), 90_000);
  afterAll(async () => {
    sockets.forEach((s) => s.destroy());
    silent?.close();
    await sites.close();
  });

  it("records the child's acceptance, start and end on the parent's stream, anchored in the child's log; a repeat appends nothing", async () => {
    const { workloadId, delegationId, childWorkloadId } = await sites.runningDelegation();
    const events = await sites.parent.store.readStream(workloadStream(workloadId));
    expect(events.map((e) => e.type)).toEqual([
      'WorkloadSubmitted',
      'AllocationDelegated',
      'DelegationAccepted',
      'AllocationStarted',
    ]);
    const started = events[3];
    expect(started.metadata.actor).toEqual({ kind: 'system', id: 'site:child-a' });
    const childEvents = await sites.child.store.readStream(workloadStream(childWorkloadId));
    const childStart = childEvents.find((e) => e.type === 'AllocationStarted');
    expect(started.data).toMatchObject({
      nodeId: 'site:child-a',
      pid: 4242,
      siteRevision: childStart?.revision,
      siteHash: childStart?.metadata.hash,
    });
    expect(started.metadata.causationId).toBe(childStart?.eventId);

    // the same report again (a retry after a lost answer): continue, nothing appended
    const state = foldRecorded(workloadDecider, childEvents);
    const from = { siteId: 'parent', workloadId, delegationId };
    const report = statusReport('child-a', from, state, childStart!);
    const sealed = sealSigned(sites.credential, DELEGATION_STATUS_PURPOSE, report, new Date());
    const again = await sites.parent.request(
      'POST',
      `/v1/federation/delegations/${delegationId}/status`,
      sealed,
    );
    expect([again.status, again.body]).toEqual([200, { delegationId, action: 'continue', recorded: [] }]);
    expect((await sites.types(sites.parent, workloadId)).length).toBe(4);

    // its output, read at the child on request (signed), under the parent's allocation (the delegation id)
    await sites.nodeReports(childWorkloadId, 'logs', {
      chunks: [{ stream: 'stdout', offset: 0, text: 'hello from child-a\n' }],
    });
    await eventuallyExpect(async () => {
      const logs = await sites.parent.request('GET', `/v1/workloads/${workloadId}/logs`);
      expect(logs.body.allocations).toEqual([
        {
          allocationId: delegationId,
          siteId: 'child-a',
          lines: [{ stream: 'stdout', line: 'hello from child-a' }],
        },
      ]);
    }, 20_000);

    await sites.nodeReports(childWorkloadId, 'completed', { exitCode: 0 });
    await eventuallyExpect(async () => {
      const view = await sites.parent.request('GET', `/v1/workloads/${workloadId}`);
      expect(view.body.status).toBe('completed');
      expect(view.body.allocations[0]).toMatchObject({ status: 'completed', exitCode: 0, siteId: 'child-a' });
    }, 20_000);
  }, 60_000);

  it('forwards a stop on the parent to the child, which stops its workload; the end flows back', async () => {
    const { workloadId, delegationId, childWorkloadId } = await sites.runningDelegation();
    const stop = await sites.parent.request('POST', `/v1/workloads/${workloadId}/stop`, { reason: 'user' });
    expect(stop.status).toBeLessThan(300);
    await eventuallyExpect(async () => {
      const childEvents = await sites.child.store.readStream(workloadStream(childWorkloadId));
      const asked = childEvents.find((e) => e.type === 'WorkloadStopRequested');
      expect(asked?.metadata.actor).toEqual({ kind: 'system', id: 'site:parent' });
      expect(childEvents.map((e) => e.type)).toContain('AllocationStopRequested');
    }, 20_000);
    expect((await sites.allocationOn(workloadId, delegationId))?.status).toBe('stopping');
    await sites.nodeReports(childWorkloadId, 'stopped', { endedBy: 'SIGTERM', signal: 'SIGTERM' });
    await eventuallyExpect(async () => {
      const view = await sites.parent.request('GET', `/v1/workloads/${workloadId}`);
      expect([view.body.status, view.body.allocations[0].status]).toEqual(['stopped', 'stopped']);
    }, 20_000);
  }, 60_000);

  it('forwards a deletion on the parent as a stop; the stopped end flows back to the deleted workload', async () => {
    const { workloadId, delegationId, childWorkloadId } = await sites.runningDelegation();
    const deleted = await sites.parent.request('DELETE', `/v1/workloads/${workloadId}`);
    expect(deleted.status).toBeLessThan(300);
    await eventuallyExpect(async () => {
      const asked = (await sites.child.store.readStream(workloadStream(childWorkloadId))).find(
        (e) => e.type === 'WorkloadStopRequested',
      );
      expect(asked?.data).toMatchObject({
        reason: expect.stringContaining('stopped by site parent: deleted'),
      });
    }, 20_000);
    await sites.nodeReports(childWorkloadId, 'stopped', { endedBy: 'SIGTERM', signal: 'SIGTERM' });
    await eventuallyExpect(
      async () => expect((await sites.allocationOn(workloadId, delegationId))?.status).toBe('stopped'),
      20_000,
    );
  }, 60_000);

  it('cancels a late acceptance after the parent fell back: the child stops it, the parent records nothing', async () => {
    const { workloadId, delegationId } = await sites.delegatedOnParent(true);
    const before = await sites.types(sites.parent, workloadId);
    const childWorkloadId = await sites.handToChild(workloadId, delegationId);
    await eventuallyExpect(async () => {
      const asked = (await sites.child.store.readStream(workloadStream(childWorkloadId))).find(
        (e) => e.type === 'WorkloadStopRequested',
      );
      expect(asked?.data).toMatchObject({ reason: expect.stringContaining('cancelled by site parent') });
    }, 20_000);
    const view = await sites.child.request('GET', `/v1/workloads/${childWorkloadId}`);
    expect(view.body.desired).toBe('stopped');
    // the parent decided the instance again elsewhere (here: no other place, unschedulable); the late one not taken
    const after = await sites.types(sites.parent, workloadId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).not.toContain('DelegationAccepted');
    expect(after).not.toContain('AllocationStarted');
  }, 60_000);

  it('leaves taken delegations unknown and rejects in-flight ones while the child is away; reconciles when it returns', async () => {
    const kept = await sites.runningDelegation();
    const givenUp = await sites.runningDelegation();
    // a delegation to a site that takes the request and never answers, and falls silent: still in flight
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const issued = await sites.parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'child-c',
      ttlSeconds: 600,
    });
    const url = `http://127.0.0.1:${(silent!.address() as AddressInfo).port}`;
    const registered = await sites.parent.request('POST', '/v1/federation/sites', {
      joinToken: issued.body.token,
      siteId: 'child-c',
      url,
    });
    const inFlight = await sites.delegatedOnParent(false, 'child-c');
    // its last word after the delegation, so that it goes offline with the delegation in flight (a slow box too)
    const summary = siteSummaryOf(sites.parent.hub.view.snapshot(), 0, new Date());
    const heard = await sites.parent.request('POST', '/v1/federation/sites/child-c/summaries', summary, {
      authorization: `Bearer ${registered.body.credential}`,
    });
    expect(heard.status).toBeLessThan(300);
    const link = sites.child.hub.app.get(Federation).link!;
    await link.stop(); // the child falls silent: no summaries past the TTL

    await eventuallyExpect(async () => {
      expect((await sites.allocationOn(kept.workloadId, kept.delegationId))?.status).toBe('unknown');
      expect((await sites.allocationOn(givenUp.workloadId, givenUp.delegationId))?.status).toBe('unknown');
      expect(await sites.types(sites.parent, inFlight.workloadId)).toContain('DelegationRejected');
    }, 30_000);
    const view = await sites.parent.request('GET', `/v1/workloads/${kept.workloadId}`);
    expect(view.body.status).toBe('unknown');
    expect(await sites.types(sites.parent, kept.workloadId)).not.toContain('AllocationLost');
    const rejected = (await sites.parent.store.readStream(workloadStream(inFlight.workloadId))).find(
      (e) => e.type === 'DelegationRejected',
    );
    expect(rejected?.data).toMatchObject({
      reason: 'timeout',
      detail: 'site child-c went offline',
      siteId: 'child-c',
      allocationId: inFlight.delegationId,
    });

    // an operator gives one up while the child is away (only an unknown one: a completed one is refused)
    const path = `/v1/workloads/${givenUp.workloadId}/allocations/${givenUp.delegationId}/give-up`;
    const given = await sites.parent.request('POST', path, { reason: 'operator: given up' });
    expect([given.status, given.body.events]).toEqual([202, ['AllocationLost']]);
    const again = await sites.parent.request('POST', path, {});
    expect([again.status, codeOf(again.body)]).toEqual([409, 'WORKLOAD.ALLOCATION_NOT_UNKNOWN']);

    link.start();
    await eventuallyExpect(async () => {
      expect((await sites.allocationOn(kept.workloadId, kept.delegationId))?.status).toBe('running');
      const cancelled = (await sites.child.store.readStream(workloadStream(givenUp.childWorkloadId))).find(
        (e) => e.type === 'WorkloadStopRequested',
      );
      expect(cancelled?.data).toMatchObject({ reason: expect.stringContaining('cancelled by site parent') });
    }, 30_000);
    const keptTypes = await sites.types(sites.parent, kept.workloadId);
    expect(keptTypes.slice(-2)).toEqual(['AllocationUnknown', 'AllocationReachable']);
    expect(keptTypes.filter((t) => t === 'AllocationStarted')).toHaveLength(1);
  }, 90_000);
});
