import { RecordedHcnEvent, workloadStream } from '@hcn/contracts';
import { freePort } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../../testing/hub-harness';
import { sealDelegation } from './delegation-envelope';

const PEER_SECRET = 'peer-secret-0123456789-0123456789-abcdef';
const FAST = { HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3', HCN_FEDERATION_LIVENESS_SWEEP_MS: '200' };
const codeOf = (body: any): string | undefined => body?.code ?? body?.error?.code;

/** A hub's workload events, as recorded. */
const streamOf = (h: HubHarness, workloadId: string) => h.store.readStream(workloadStream(workloadId));
/** The types of a parent workload's federation events, in order. */
const hopsOf = (events: readonly RecordedHcnEvent[]) =>
  events
    .filter((e) => ['AllocationDelegated', 'DelegationAccepted', 'DelegationRejected'].includes(e.type))
    .map((e) => `${e.type}:${(e.data as { siteId: string }).siteId}`);

/**
 * The delegating side of federation, in one process: a parent without nodes of its own, two child sites registered
 * with it and a peer configured on both sides (per-pair secret), each hub on its own database. Child A has two
 * 2-core nodes and nothing running (its summary looks best), child B one 4-core node with 1 core taken, the peer one
 * 4-core node. A workload submitted on the parent is delegated to a child's node; one no node of A fits (its summary
 * says 3.5 cores free, its largest node has 2) is refused by A and placed on B; one that fits neither child goes to
 * the peer; a child that does not answer (child C, closed) times out and the instance falls back. Every hop is on the parent's stream.
 */
describeWithPostgres(
  'federation: the parent delegates to child sites, falls back to siblings, then peers',
  () => {
    let parent: HubHarness;
    let childA: HubHarness;
    let childB: HubHarness;
    let peer: HubHarness;
    let dir: string;

    const submit = async (cpuMillis: number) => {
      const spec = processSpec({ name: `w-${cpuMillis}`, resources: { cpuMillis, memoryBytes: 2 ** 28 } });
      const response = await parent.request('POST', '/v1/workloads', spec);
      expect([response.status, codeOf(response.body)]).toEqual([201, undefined]);
      return response.body.workloadId as string;
    };
    /** Waits until the parent recorded a site's taking of the workload; its events then. */
    const settled = async (workloadId: string, timeoutMs = 20_000) => {
      let events: RecordedHcnEvent[] = [];
      await eventually(
        `workload ${workloadId} taken by a site`,
        async () => {
          events = await streamOf(parent, workloadId);
          return events.some((e) => e.type === 'DelegationAccepted');
        },
        timeoutMs,
      );
      return events;
    };
    const childOf = async (h: HubHarness, parentEvents: readonly RecordedHcnEvent[]) => {
      const accepted = parentEvents.find((e) => e.type === 'DelegationAccepted')!;
      return streamOf(h, (accepted.data as { siteWorkloadId: string }).siteWorkloadId);
    };
    const freeCpu = async (siteId: string) =>
      (await parent.request('GET', `/v1/federation/sites/${siteId}`)).body.summary?.cpuMillis.free as number;

    const startChild = async (siteId: string, nodes: number[]) => {
      const issued = await parent.request('POST', '/v1/federation/join-tokens', { siteId, ttlSeconds: 600 });
      const child = await startHubHarness({
        ...FAST,
        HCN_NODE_TTL_SECONDS: '600',
        HCN_SITE_ID: siteId,
        HCN_FEDERATION_PARENT_URL: parent.hub.url,
        HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
        HCN_FEDERATION_CREDENTIAL_FILE: join(dir, `${siteId}.credential`),
        HCN_FEDERATION_NAMESPACES: 'default',
      });
      for (const [i, cpuCores] of nodes.entries())
        await registerNode(child, { cpuCores, hostname: `${siteId}-${i}` });
      return child;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'hcn-parent-delegation-'));
      const [parentPort, peerPort] = [await freePort(), await freePort()];
      peer = await startHubHarness({
        HCN_NODE_TTL_SECONDS: '600',
        HCN_HTTP_PORT: String(peerPort),
        HCN_SITE_ID: 'peer-p',
        HCN_FEDERATION_PEERS: `parent=http://127.0.0.1:${parentPort}`,
        HCN_FEDERATION_PEER_SECRETS: `parent=${PEER_SECRET}`,
        HCN_FEDERATION_NAMESPACES: 'default',
      });
      await registerNode(peer, { cpuCores: 4, hostname: 'peer-0' });
      parent = await startHubHarness({
        ...FAST,
        HCN_HTTP_PORT: String(parentPort),
        HCN_SITE_ID: 'parent',
        HCN_FEDERATION_SITE_TTL_SECONDS: '60',
        HCN_FEDERATION_PEERS: `peer-p=http://127.0.0.1:${peerPort}`,
        HCN_FEDERATION_PEER_SECRETS: `peer-p=${PEER_SECRET}`,
        HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: '5',
      });
      childA = await startChild('child-a', [2, 2]);
      childB = await startChild('child-b', [4]);
      const local = await childB.request(
        'POST',
        '/v1/workloads',
        processSpec({ resources: { cpuMillis: 1000, memoryBytes: 2 ** 28 } }),
      );
      expect(local.status).toBe(201);
      await eventually(
        'both children summarised on the parent',
        async () => (await freeCpu('child-a')) === 4000 && (await freeCpu('child-b')) === 3000,
        20_000,
      );
    }, 120_000);
    afterAll(async () => {
      for (const h of [parent, childA, childB, peer]) await h?.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }, 180_000); // a slow stop names its part in a warning (hub-close); on a loaded box it has taken over 60 s

    it("places a workload submitted on the parent on a child's node; the parent's stream shows the cross-site hop", async () => {
      const workloadId = await submit(500);
      const events = await settled(workloadId);
      expect(hopsOf(events)).toEqual(['AllocationDelegated:child-a', 'DelegationAccepted:child-a']);
      const delegated = events.find((e) => e.type === 'AllocationDelegated')!.data as any;
      expect(delegated.relation).toBe('child');
      expect(delegated.decision.basis.federation.children.map((c: [string, number]) => c[0])).toEqual([
        'child-a',
        'child-b',
      ]);
      const child = await childOf(childA, events);
      expect(child.map((e) => e.type)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
      expect(child[0].data).toMatchObject({
        delegatedFrom: { siteId: 'parent', workloadId, delegationId: delegated.allocationId },
      });
      const view = await parent.request('GET', `/v1/workloads/${workloadId}`);
      expect(view.body.allocations[0]).toMatchObject({
        allocationId: delegated.allocationId,
        nodeId: 'site:child-a',
        siteId: 'child-a',
        siteWorkloadId: (child[0].data as { workloadId: string }).workloadId,
        status: 'placed',
      });
    });

    it('records child A refusing what none of its nodes fits, then places it on child B', async () => {
      await eventually(
        'the parent sees the first workload on child A',
        async () => (await freeCpu('child-a')) === 3500,
        20_000,
      );
      const workloadId = await submit(2500);
      const events = await settled(workloadId);
      expect(hopsOf(events)).toEqual([
        'AllocationDelegated:child-a',
        'DelegationRejected:child-a',
        'AllocationDelegated:child-b',
        'DelegationAccepted:child-b',
      ]);
      const rejected = events.find((e) => e.type === 'DelegationRejected')!.data as any;
      expect(rejected).toMatchObject({
        scope: 'site:child-a',
        reason: 'unschedulable',
        code: 'WORKLOAD.UNSCHEDULABLE',
      });
      expect((await childOf(childB, events)).map((e) => e.type)).toEqual([
        'WorkloadSubmitted',
        'AllocationPlaced',
      ]);
      // each decision replays exactly from the parent's log (its tree, the children's summaries it recorded)
      for (const decision of [0, 1]) {
        const replay = await parent.request(
          'GET',
          `/v1/audit/workloads/${workloadId}/explain?decision=${decision}`,
        );
        expect([replay.status, replay.body.matches, replay.body.differences]).toEqual([200, true, []]);
      }
      // the second decision left child A out
      const second = events.filter((e) => e.type === 'AllocationDelegated')[1].data as any;
      const keptA = second.decision.hops[0].kept.find((v: unknown[]) => v.includes('child-a'));
      expect(keptA).toBeDefined();
    });

    it('places on the peer when neither child can take it', async () => {
      await eventually(
        'the parent sees child B nearly full',
        async () => (await freeCpu('child-b')) === 500,
        20_000,
      );
      const workloadId = await submit(3000);
      const events = await settled(workloadId);
      expect(hopsOf(events)).toEqual([
        'AllocationDelegated:child-a',
        'DelegationRejected:child-a',
        'AllocationDelegated:peer-p',
        'DelegationAccepted:peer-p',
      ]);
      expect((events.filter((e) => e.type === 'AllocationDelegated')[1].data as any).relation).toBe('peer');
      const onPeer = await childOf(peer, events);
      expect(onPeer.map((e) => e.type)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
      expect(onPeer[0].metadata.actor).toEqual({ kind: 'user', id: 'site:parent' });
    });

    it("refuses a delegation signed with another pair's key or naming an unknown site, writing nothing", async () => {
      const count = async (h: HubHarness) =>
        (await h.store.readAll({ filter: { kind: 'streamPrefix', prefixes: ['workload-', 'quota-'] } }))
          .length;
      const before = await count(peer);
      const request = {
        delegationId: randomUUID(),
        parentSiteId: 'parent',
        parentWorkloadId: randomUUID(),
        namespace: 'default',
        spec: processSpec(),
      } as never;
      const foreign = await peer.request(
        'POST',
        '/v1/federation/delegations',
        sealDelegation('x'.repeat(40), request, new Date()),
      );
      expect([foreign.status, codeOf(foreign.body)]).toEqual([401, 'AUTH.INVALID_DELEGATION_SIGNATURE']);
      const stranger = { ...(request as object), parentSiteId: 'stranger' } as never;
      const unknown = await peer.request(
        'POST',
        '/v1/federation/delegations',
        sealDelegation(PEER_SECRET, stranger, new Date()),
      );
      expect(codeOf(unknown.body)).toBe('AUTH.UNKNOWN_PARENT_SITE');
      expect(unknown.status).toBeGreaterThanOrEqual(400);
      expect(unknown.status).toBeLessThan(500);
      expect(await count(peer)).toBe(before);
    });

    it('records a timeout when a child does not answer, and falls back to its sibling', async () => {
      // child C looks best (16 free cores) but is gone before the delegation: the parent still holds it online (TTL)
      const childC = await startChild('child-c', [16]);
      await eventually(
        'child C summarised on the parent',
        async () => (await freeCpu('child-c')) === 16_000,
        20_000,
      );
      await childC.close();
      const workloadId = await submit(500);
      const events = await settled(workloadId, 40_000);
      expect(hopsOf(events)).toEqual([
        'AllocationDelegated:child-c',
        'DelegationRejected:child-c',
        'AllocationDelegated:child-a',
        'DelegationAccepted:child-a',
      ]);
      const rejected = events.find((e) => e.type === 'DelegationRejected')!;
      expect(rejected.data).toMatchObject({ scope: 'site:child-c', reason: 'timeout' });
      expect(rejected.data).not.toHaveProperty('code');
      const delegatedAt = Date.parse(events.find((e) => e.type === 'AllocationDelegated')!.recordedAt);
      expect(Date.parse(rejected.recordedAt) - delegatedAt).toBeGreaterThanOrEqual(5000);
    }, 60_000);

    it('keeps an instance no site can take unschedulable, and delegates it once a child has room again', async () => {
      const gone = await parent.request('DELETE', '/v1/federation/sites/child-c', { reason: 'closed' });
      expect(gone.status).toBe(200);
      // A's summary shows 3 free cores but its nodes 1.5 each, B has 0.5, the peer 1: nobody takes 1.8 cores
      const workloadId = await submit(1800);
      let events: RecordedHcnEvent[] = [];
      await eventually(
        'the parent gave up for now',
        async () => {
          events = await streamOf(parent, workloadId);
          return events.some((e) => e.type === 'WorkloadUnschedulable');
        },
        30_000,
      );
      // child C, deregistered just now, may still be a candidate in the parent's view: asked, it is refused at once
      expect(hopsOf(events).filter((hop) => !hop.endsWith(':child-c'))).toEqual([
        'AllocationDelegated:child-a',
        'DelegationRejected:child-a',
        'AllocationDelegated:peer-p',
        'DelegationRejected:peer-p',
      ]);
      for (const e of events.filter((e) => e.type === 'DelegationRejected' && e.data.siteId === 'child-c'))
        expect(e.data).toMatchObject({ reason: 'refused', code: 'FEDERATION.SITE_UNKNOWN' });
      // a new node on B: its next summary shows more room, the parent tries the waiting instance again
      await registerNode(childB, { cpuCores: 4, hostname: 'child-b-1' });
      const after = await settled(workloadId, 30_000);
      expect(hopsOf(after).slice(-2)).toEqual(['AllocationDelegated:child-b', 'DelegationAccepted:child-b']);
      const unschedulableAt = after.findIndex((e) => e.type === 'WorkloadUnschedulable');
      const retriedAt = after.findIndex((e, i) => i > unschedulableAt && e.type === 'AllocationDelegated');
      expect(retriedAt).toBeGreaterThan(unschedulableAt);
    }, 60_000);
  },
);
