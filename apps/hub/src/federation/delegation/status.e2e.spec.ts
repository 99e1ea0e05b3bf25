import { toNewEvents } from '@hcn/commands';
import {
  DelegationRequest,
  delegationRequestSchema,
  isEventOf,
  workloadSpecSchema,
  workloadStream,
} from '@hcn/contracts';
import { foldRecorded, workloadDecider } from '@hcn/domain';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { describeWithPostgres, eventually, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HubHarness,
  processSpec,
  registerNode,
  signedReport,
  startHubHarness,
} from '../../testing/hub-harness';
import { Federation } from '../federation';
import { sealDelegation } from './delegation-envelope';
import { DELEGATION_STATUS_PURPOSE, sealSigned } from './signed-message';
import { statusReport } from './status-report';

const FAST = {
  HCN_FEDERATION_SITE_TTL_SECONDS: '2',
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
};
const codeOf = (body: any): string | undefined => body?.code ?? body?.error?.code;
const SYSTEM = { correlationId: 'spec', causationId: 'spec', actor: { kind: 'system' as const, id: 'spec' } };

/**
 * Status flows back and partitions (issue 21 items 4-5), a parent and a child hub on their own databases. The
 * parent's delegations are given as its log would hold them (AllocationDelegated on a submitted workload) and
 * handed to the child as the parent's sender would, signed with the credential the two share; the child's node
 * reports as an agent does. The child reports each delegated workload's status back; the parent records it on its
 * own stream through the workload decider (started, ended; a repeat appends nothing), forwards a user's stop, cancels
 * a late acceptance; a child silent past its TTL leaves taken delegations unknown and in-flight ones rejected, and
 * once back it is reconciled (unknown -> running; what the parent gave up meanwhile is cancelled there).
 */
describeWithPostgres('federation: status flows back from a child site, and partitions', () => {
  let parent: HubHarness;
  let child: HubHarness;
  let dir: string;
  let credential: string;
  let node: { nodeId: string; commandKey: string };
  let seq = 0;
  let silent: Server | undefined;
  const sockets: Socket[] = [];

  const types = async (h: HubHarness, workloadId: string) =>
    (await h.store.readStream(workloadStream(workloadId))).map((e) => e.type);
  const allocationOn = async (workloadId: string, allocationId: string) => {
    const answer = await parent.request('GET', `/v1/workloads/${workloadId}`);
    return (answer.body.allocations as Array<{ allocationId: string; status: string }>).find(
      (a) => a.allocationId === allocationId,
    );
  };

  /** A workload of the parent delegated to child-a (allocation = delegation id), as the parent's log holds it. */
  async function delegatedOnParent(
    rejected = false,
    siteId = 'child-a',
  ): Promise<{ workloadId: string; delegationId: string }> {
    const workloadId = randomUUID();
    const delegationId = randomUUID();
    const spec = workloadSpecSchema.parse(processSpec());
    const base = { workloadId, allocationId: delegationId, instance: 0, attempt: 0 };
    const events = [
      { type: 'WorkloadSubmitted', data: { workloadId, spec, idempotencyKey: null } },
      {
        type: 'AllocationDelegated',
        data: {
          ...base,
          generation: 1,
          siteId,
          relation: 'child',
          resources: spec.resources,
          decision: { hops: [], rejections: [], topK: 5, basis: { at: '0/0' } },
        },
      },
      ...(rejected
        ? [
            {
              type: 'DelegationRejected',
              data: {
                ...base,
                scope: `site:${siteId}`,
                reason: 'timeout',
                detail: 'no answer in time',
                candidates: [],
                siteId,
                rejectedAt: new Date().toISOString(),
              },
            },
          ]
        : []),
    ];
    const context = { ...SYSTEM, correlationId: workloadId, now: new Date() };
    await parent.store.append(workloadStream(workloadId), toNewEvents(events, context), 'no_stream');
    return { workloadId, delegationId };
  }

  /** Hands the delegation to the child, signed as the parent's sender signs it; answers the child's workload id. */
  async function handToChild(workloadId: string, delegationId: string): Promise<string> {
    const request: DelegationRequest = delegationRequestSchema.parse({
      delegationId,
      parentSiteId: 'parent',
      parentWorkloadId: workloadId,
      namespace: 'default',
      spec: processSpec(),
    });
    const answer = await child.request(
      'POST',
      '/v1/federation/delegations',
      sealDelegation(credential, request, new Date()),
    );
    expect(answer.body).toMatchObject({ outcome: 'accepted' });
    return answer.body.workloadId as string;
  }

  /** The child's node reports on the child's allocation of `childWorkloadId`, as its agent would. */
  async function nodeReports(childWorkloadId: string, status: string, extra: Record<string, unknown> = {}) {
    const placed = (await child.store.readStream(workloadStream(childWorkloadId))).find((e) =>
      isEventOf(e, 'AllocationPlaced'),
    );
    if (!isEventOf(placed, 'AllocationPlaced')) throw new Error('not placed on the child');
    const report = {
      kind: 'allocation',
      nodeId: node.nodeId,
      domainId: 'site-a',
      seq: ++seq,
      sentAt: new Date().toISOString(),
      workloadId: childWorkloadId,
      allocationId: placed.data.allocationId,
      status,
      at: new Date().toISOString(),
      ...extra,
    };
    await child.bus.publish(AGENT_REPORTS_TOPIC, [{ key: node.nodeId, value: signedReport(node, report) }]);
  }

  /** A delegation taken by the child and running on its node, the parent told so. */
  async function runningDelegation() {
    const { workloadId, delegationId } = await delegatedOnParent();
    const childWorkloadId = await handToChild(workloadId, delegationId);
    await nodeReports(childWorkloadId, 'started', { pid: 4242 });
    await eventuallyExpect(
      async () => expect((await allocationOn(workloadId, delegationId))?.status).toBe('running'),
      20_000,
    );
    return { workloadId, delegationId, childWorkloadId };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-delegation-status-'));
    parent = await startHubHarness({ ...FAST, HCN_SITE_ID: 'parent' });
    const issued = await parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'child-a',
      ttlSeconds: 600,
    });
    const credentialFile = join(dir, 'child-a.credential');
    child = await startHubHarness({
      ...FAST,
      HCN_NODE_TTL_SECONDS: '600', // no agent heartbeats here: the node stays online for the spec
      HCN_SITE_ID: 'child-a',
      HCN_FEDERATION_PARENT_URL: parent.hub.url,
      HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
      HCN_FEDERATION_CREDENTIAL_FILE: credentialFile,
      HCN_FEDERATION_NAMESPACES: 'default',
    });
    node = await registerNode(child, { cpuCores: 16 });
    await eventually('the child registered with its parent', async () => {
      const link = await child.request('GET', '/v1/federation/link');
      return link.body.parent?.registered === true;
    });
    ({ credential } = JSON.parse(readFileSync(credentialFile, 'utf8')) as { credential: string });
  }, 90_000);
  afterAll(async () => {
    sockets.forEach((s) => s.destroy());
    silent?.close();
    await child?.close();
    await parent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("records the child's acceptance, start and end on the parent's stream, anchored in the child's log; a repeat appends nothing", async () => {
    const { workloadId, delegationId, childWorkloadId } = await runningDelegation();
    const events = await parent.store.readStream(workloadStream(workloadId));
    expect(events.map((e) => e.type)).toEqual([
      'WorkloadSubmitted',
      'AllocationDelegated',
      'DelegationAccepted',
      'AllocationStarted',
    ]);
    const started = events[3];
    expect(started.metadata.actor).toEqual({ kind: 'system', id: 'site:child-a' });
    const childEvents = await child.store.readStream(workloadStream(childWorkloadId));
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
    const sealed = sealSigned(credential, DELEGATION_STATUS_PURPOSE, report, new Date());
    const again = await parent.request('POST', `/v1/federation/delegations/${delegationId}/status`, sealed);
    expect([again.status, again.body]).toEqual([200, { delegationId, action: 'continue', recorded: [] }]);
    expect((await types(parent, workloadId)).length).toBe(4);

    await nodeReports(childWorkloadId, 'completed', { exitCode: 0 });
    await eventuallyExpect(async () => {
      const view = await parent.request('GET', `/v1/workloads/${workloadId}`);
      expect(view.body.status).toBe('completed');
      expect(view.body.allocations[0]).toMatchObject({ status: 'completed', exitCode: 0, siteId: 'child-a' });
    }, 20_000);
  }, 60_000);

  it('forwards a stop on the parent to the child, which stops its workload; the end flows back', async () => {
    const { workloadId, delegationId, childWorkloadId } = await runningDelegation();
    const stop = await parent.request('POST', `/v1/workloads/${workloadId}/stop`, { reason: 'user' });
    expect(stop.status).toBeLessThan(300);
    await eventuallyExpect(async () => {
      const childEvents = await child.store.readStream(workloadStream(childWorkloadId));
      const asked = childEvents.find((e) => e.type === 'WorkloadStopRequested');
      expect(asked?.metadata.actor).toEqual({ kind: 'system', id: 'site:parent' });
      expect(childEvents.map((e) => e.type)).toContain('AllocationStopRequested');
    }, 20_000);
    expect((await allocationOn(workloadId, delegationId))?.status).toBe('stopping');
    await nodeReports(childWorkloadId, 'stopped', { endedBy: 'SIGTERM', signal: 'SIGTERM' });
    await eventuallyExpect(async () => {
      const view = await parent.request('GET', `/v1/workloads/${workloadId}`);
      expect([view.body.status, view.body.allocations[0].status]).toEqual(['stopped', 'stopped']);
    }, 20_000);
  }, 60_000);

  it('cancels a late acceptance after the parent fell back: the child stops it, the parent records nothing', async () => {
    const { workloadId, delegationId } = await delegatedOnParent(true);
    const before = await types(parent, workloadId);
    const childWorkloadId = await handToChild(workloadId, delegationId);
    await eventuallyExpect(async () => {
      const asked = (await child.store.readStream(workloadStream(childWorkloadId))).find(
        (e) => e.type === 'WorkloadStopRequested',
      );
      expect(asked?.data).toMatchObject({ reason: expect.stringContaining('cancelled by site parent') });
    }, 20_000);
    const view = await child.request('GET', `/v1/workloads/${childWorkloadId}`);
    expect(view.body.desired).toBe('stopped');
    // the parent decided the instance again elsewhere (here: no other place, unschedulable); the late one not taken
    const after = await types(parent, workloadId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).not.toContain('DelegationAccepted');
    expect(after).not.toContain('AllocationStarted');
  }, 60_000);

  it('refuses bad status reports with a dotted code, writing nothing', async () => {
    const { workloadId, delegationId } = await delegatedOnParent();
    const issued = await parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'child-b',
      ttlSeconds: 600,
    });
    const other = await parent.request('POST', '/v1/federation/sites', {
      joinToken: issued.body.token,
      siteId: 'child-b',
      url: 'http://127.0.0.1:9',
    });
    const report = {
      delegationId,
      siteId: 'child-a',
      parentWorkloadId: workloadId,
      workloadId: randomUUID(),
      revision: 3,
      eventId: randomUUID(),
      status: 'running',
      at: new Date().toISOString(),
    };
    const post = (body: unknown, id = delegationId) =>
      parent.request('POST', `/v1/federation/delegations/${id}/status`, body);
    const sealed = (key: string, value: unknown, at = new Date()) =>
      sealSigned(key, DELEGATION_STATUS_PURPOSE, value, at);
    await handToChild(workloadId, delegationId);
    await eventuallyExpect(async () =>
      expect(await types(parent, workloadId)).toContain('DelegationAccepted'),
    );
    const before = await types(parent, workloadId);
    const cases: Array<[string, unknown, number, string, string?]> = [
      ['foreign key', sealed(`${credential}x`, report), 401, 'AUTH.INVALID_DELEGATION_SIGNATURE'],
      [
        'another purpose',
        sealSigned(credential, 'hcn-delegation', report, new Date()),
        401,
        'AUTH.INVALID_DELEGATION_SIGNATURE',
      ],
      ['stale', sealed(credential, report, new Date(Date.now() - 120_000)), 401, 'AUTH.DELEGATION_STALE'],
      [
        'unknown site',
        sealed(credential, { ...report, siteId: 'nowhere' }),
        401,
        'AUTH.INVALID_SITE_CREDENTIAL',
      ],
      [
        "another child's delegation",
        sealed(other.body.credential, { ...report, siteId: 'child-b' }),
        403,
        'FEDERATION.DELEGATION_NOT_TO_SITE',
      ],
      [
        'unknown delegation',
        sealed(credential, { ...report, delegationId: randomUUID() }),
        404,
        'FEDERATION.DELEGATION_NOT_FOUND',
        'path',
      ],
      [
        'another delegation than the path',
        sealed(credential, { ...report, delegationId: randomUUID() }),
        400,
        'FEDERATION.DELEGATION_MALFORMED',
      ],
      [
        'not a report',
        sealed(credential, { ...report, status: 'exploded' }),
        400,
        'FEDERATION.DELEGATION_MALFORMED',
      ],
      ['not an envelope', report, 400, 'FEDERATION.DELEGATION'],
    ];
    for (const [name, body, status, code, path] of cases) {
      const id = path ? JSON.parse((body as { payload: string }).payload).delegationId : delegationId;
      const refused = await post(body, id);
      expect([name, refused.status, codeOf(refused.body)]).toEqual([name, status, code]);
    }
    expect(await types(parent, workloadId)).toEqual(before);
  }, 60_000);

  it('leaves taken delegations unknown and rejects in-flight ones while the child is away; reconciles when it returns', async () => {
    const kept = await runningDelegation();
    const givenUp = await runningDelegation();
    // a delegation to a site that takes the request and never answers, and falls silent: still in flight
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const issued = await parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'child-c',
      ttlSeconds: 600,
    });
    const url = `http://127.0.0.1:${(silent!.address() as AddressInfo).port}`;
    await parent.request('POST', '/v1/federation/sites', {
      joinToken: issued.body.token,
      siteId: 'child-c',
      url,
    });
    const inFlight = await delegatedOnParent(false, 'child-c');
    const link = child.hub.app.get(Federation).link!;
    await link.stop(); // the child falls silent: no summaries past the TTL

    await eventuallyExpect(async () => {
      expect((await allocationOn(kept.workloadId, kept.delegationId))?.status).toBe('unknown');
      expect((await allocationOn(givenUp.workloadId, givenUp.delegationId))?.status).toBe('unknown');
      expect(await types(parent, inFlight.workloadId)).toContain('DelegationRejected');
    }, 30_000);
    const view = await parent.request('GET', `/v1/workloads/${kept.workloadId}`);
    expect(view.body.status).toBe('unknown');
    expect(await types(parent, kept.workloadId)).not.toContain('AllocationLost');
    const rejected = (await parent.store.readStream(workloadStream(inFlight.workloadId))).find(
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
    const given = await parent.request('POST', path, { reason: 'operator: given up' });
    expect([given.status, given.body.events]).toEqual([202, ['AllocationLost']]);
    const again = await parent.request('POST', path, {});
    expect([again.status, codeOf(again.body)]).toEqual([409, 'WORKLOAD.ALLOCATION_NOT_UNKNOWN']);

    link.start();
    await eventuallyExpect(async () => {
      expect((await allocationOn(kept.workloadId, kept.delegationId))?.status).toBe('running');
      const cancelled = (await child.store.readStream(workloadStream(givenUp.childWorkloadId))).find(
        (e) => e.type === 'WorkloadStopRequested',
      );
      expect(cancelled?.data).toMatchObject({ reason: expect.stringContaining('cancelled by site parent') });
    }, 30_000);
    const keptTypes = await types(parent, kept.workloadId);
    expect(keptTypes.slice(-2)).toEqual(['AllocationUnknown', 'AllocationReachable']);
    expect(keptTypes.filter((t) => t === 'AllocationStarted')).toHaveLength(1);
  }, 90_000);
});
