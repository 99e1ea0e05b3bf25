import { RecordedHcnEvent, isEventOf, workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DELEGATION_CHAIN_PURPOSE } from '../../apps/hub/src/federation/audit/delegated-chain';
import {
  DELEGATION_STATUS_PURPOSE,
  sealSigned,
} from '../../apps/hub/src/federation/delegation/signed-message';
import {
  SiteProcess,
  call,
  closeSites,
  hubProcess,
  lastFreeCpu,
  openSite,
  ready,
  registerSiteNode,
} from './site-processes';

const PEER_SECRET = 'e2e-peer-secret-0123456789-0123456789';
/** Every site's summaries often, its TTL generous (a loaded box must not take a child offline mid-spec). */
const SITE = { HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.5', HCN_FEDERATION_SITE_TTL_SECONDS: '60' };
const SITES = ['parent', 'child-a', 'child-b', 'peer-p'] as const;
type SiteName = (typeof SITES)[number];

/** The federation events of a parent workload as `Type:site`, in order. */
const hopsOf = (events: readonly RecordedHcnEvent[]) =>
  events
    .filter((e) => ['AllocationDelegated', 'DelegationAccepted', 'DelegationRejected'].includes(e.type))
    .map((e) => `${e.type}:${(e.data as { siteId: string }).siteId}`);

/**
 * Issue 21's delegation proofs with each site a separate OS process on its own PostgreSQL database (and its own
 * in-process bus): a parent with no nodes of its own, children A (two 2-core nodes, nothing running) and B (one
 * 4-core node, 1 core taken) registered with it, a peer configured on both sides (per-pair secret). (a) A workload
 * submitted on the parent is placed on a child's node; the parent's stream shows the cross-site hop, the child's
 * stream the delegation it came from. (b) A refuses what none of its nodes fits (its summary says 3.5 cores free, its
 * largest node has 2), the refusal is recorded and the workload is placed on B; one that neither child can take is
 * placed on the peer. (c) The parent's chain is stitched with the child's and its verify reports tampering in the
 * child's database. (d) A child's site credential neither reads nor acts on another child's delegated workloads.
 */
describeWithPostgres(
  'federation across processes: delegation to children, fallback to a sibling and a peer',
  () => {
    const sites = {} as Record<SiteName, SiteProcess>;
    let dir: string;

    const start = (name: SiteName, env: Record<string, string>) => {
      const site = sites[name];
      site.hub = hubProcess(`${name}-hub`, site.db, site.port, {
        ...SITE,
        HCN_SITE_ID: name,
        ...env,
      }).start();
      return ready(site.hub, site.url);
    };
    const registerNode = (name: SiteName, hostname: string, cpuCores: number) =>
      registerSiteNode(sites[name].url, hostname, cpuCores);
    const startChild = async (name: 'child-a' | 'child-b') => {
      const issued = await call(`${sites.parent.url}/v1/federation/join-tokens`, 'POST', { siteId: name });
      expect(issued.status).toBe(201);
      await start(name, {
        HCN_NODE_TTL_SECONDS: '3600',
        HCN_FEDERATION_PARENT_URL: sites.parent.url,
        HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
        HCN_FEDERATION_CREDENTIAL_FILE: join(dir, `${name}.credential`),
        HCN_FEDERATION_NAMESPACES: 'default',
      });
    };
    const freeCpu = (siteId: string) => lastFreeCpu(sites.parent, siteId);
    const submit = async (cpuMillis: number) => {
      const spec = {
        name: `w-${cpuMillis}`,
        command: 'true',
        resources: { cpuMillis, memoryBytes: 2 ** 28 },
      };
      const response = await call(`${sites.parent.url}/v1/workloads`, 'POST', spec);
      expect(response.status).toBe(201);
      return response.body.workloadId as string;
    };
    /** The parent's events of a workload once a site took it. */
    const taken = async (workloadId: string) => {
      let events: RecordedHcnEvent[] = [];
      await eventually(
        `workload ${workloadId} taken by a site`,
        async () => {
          events = await sites.parent.store.readStream(workloadStream(workloadId));
          return events.some((e) => e.type === 'DelegationAccepted');
        },
        60_000,
      );
      return events;
    };
    const siteWorkload = (events: readonly RecordedHcnEvent[]) =>
      (events.find((e) => e.type === 'DelegationAccepted')!.data as { siteWorkloadId: string })
        .siteWorkloadId;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'hcn-federation-delegation-'));
      for (const name of SITES) sites[name] = await openSite(`fed${name.replace('-', '')}`);
      const peerEnv = (other: SiteName) => ({
        HCN_FEDERATION_PEERS: `${other}=${sites[other].url}`,
        HCN_FEDERATION_PEER_SECRETS: `${other}=${PEER_SECRET}`,
      });
      await Promise.all([
        start('parent', { ...peerEnv('peer-p'), HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: '20' }),
        start('peer-p', {
          ...peerEnv('parent'),
          HCN_NODE_TTL_SECONDS: '3600',
          HCN_FEDERATION_NAMESPACES: 'default',
        }),
      ]);
      await Promise.all([startChild('child-a'), startChild('child-b')]);
      await registerNode('child-a', 'a-1', 2);
      await registerNode('child-a', 'a-2', 2);
      await registerNode('child-b', 'b-1', 4);
      await registerNode('peer-p', 'p-1', 4);
      const local = { name: 'local', command: 'true', resources: { cpuMillis: 1000, memoryBytes: 2 ** 28 } };
      expect((await call(`${sites['child-b'].url}/v1/workloads`, 'POST', local)).status).toBe(201);
      await eventually(
        'both children summarised on the parent',
        async () => (await freeCpu('child-a')) === 4000 && (await freeCpu('child-b')) === 3000,
        60_000,
      );
    }, 400_000);
    afterAll(() => closeSites(Object.values(sites), dir));

    it("(a) places a workload submitted on the parent on a child's node, the cross-site hop on the parent's stream", async () => {
      const workloadId = await submit(500);
      const events = await taken(workloadId);
      expect(hopsOf(events)).toEqual(['AllocationDelegated:child-a', 'DelegationAccepted:child-a']);
      const delegated = events.find((e) => e.type === 'AllocationDelegated')!.data as {
        allocationId: string;
      };
      const child = await sites['child-a'].store.readStream(workloadStream(siteWorkload(events)));
      expect(child.map((e) => e.type)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
      expect(child[0].data).toMatchObject({
        delegatedFrom: { siteId: 'parent', workloadId, delegationId: delegated.allocationId },
      });
    }, 90_000);

    it('(b) child A refuses, the refusal is recorded, B takes it; with both children full the peer takes it', async () => {
      await eventually(
        'the parent sees the first workload on A',
        async () => (await freeCpu('child-a')) === 3500,
        30_000,
      );
      const second = await taken(await submit(2500));
      expect(hopsOf(second)).toEqual([
        'AllocationDelegated:child-a',
        'DelegationRejected:child-a',
        'AllocationDelegated:child-b',
        'DelegationAccepted:child-b',
      ]);
      expect(second.find((e) => e.type === 'DelegationRejected')!.data).toMatchObject({
        scope: 'site:child-a',
        reason: 'unschedulable',
      });
      const onB = await sites['child-b'].store.readStream(workloadStream(siteWorkload(second)));
      expect(onB.map((e) => e.type)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);

      await eventually(
        'the parent sees B nearly full',
        async () => (await freeCpu('child-b')) === 500,
        30_000,
      );
      const third = await taken(await submit(3000));
      expect(hopsOf(third)).toEqual([
        'AllocationDelegated:child-a',
        'DelegationRejected:child-a',
        'AllocationDelegated:peer-p',
        'DelegationAccepted:peer-p',
      ]);
      const onPeer = await sites['peer-p'].store.readStream(workloadStream(siteWorkload(third)));
      expect(onPeer.map((e) => e.type)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
      expect(onPeer[0].data).toMatchObject({ delegatedFrom: { siteId: 'parent' } });
    }, 180_000);

    it("(c) the parent's chain stitches the child's and the peer's in, and its verify reports an event changed in a child's database", async () => {
      const workloadId = await submit(500);
      const events = await taken(workloadId);
      const childStream = workloadStream(siteWorkload(events));
      const chainOf = async (id: string) =>
        (await call(`${sites.parent.url}/v1/audit/workloads/${id}/chain`, 'GET')).body;
      const chain = await chainOf(workloadId);
      expect(chain.sites).toEqual([
        expect.objectContaining({
          siteId: 'child-a',
          streamId: childStream,
          verification: expect.objectContaining({ ok: true }),
        }),
      ]);
      // the parent's hops down to the site, then the child's own hops down to its node
      expect(chain.decisions[0].hops.at(-1)).toMatchObject({ toKind: 'node', to: 'site:child-a' });
      expect(chain.sites[0].chain.decisions[0].outcome).toMatchObject({ kind: 'placed' });
      expect(chain.sites[0].chain.decisions[0].hops.length).toBeGreaterThan(0);

      // the workload (b) handed to the peer: the peer answers with the pair's key
      const delegations = await sites.parent.store.readAll({
        filter: { kind: 'eventTypePrefix', prefixes: ['AllocationDelegated'] },
      });
      const toPeer = delegations.filter(
        (e) => isEventOf(e, 'AllocationDelegated') && e.data.siteId === 'peer-p',
      );
      expect(toPeer).toHaveLength(1);
      const peerChain = await chainOf(toPeer[0].streamId.slice('workload-'.length));
      expect(peerChain.sites.find((p: { siteId: string }) => p.siteId === 'peer-p')).toMatchObject({
        verification: { ok: true },
      });

      const verify = async () =>
        (await call(`${sites.parent.url}/v1/audit/workloads/${workloadId}/verify`, 'GET')).body;
      expect(await verify()).toMatchObject({ ok: true, complete: true });
      const sql = new Client({ connectionString: sites['child-a'].db.url });
      await sql.connect();
      const changed = await sql
        .query(
          `UPDATE hcn_events SET data = jsonb_set(data, '{spec,name}', '"changed"') WHERE stream_id = $1 AND revision = 0`,
          [childStream],
        )
        .finally(() => sql.end());
      expect(changed.rowCount).toBe(1);
      const report = await verify();
      expect(report).toMatchObject({ ok: false, complete: true, local: { ok: true } });
      expect(report.sites[0].verification.problems[0]).toMatchObject({
        kind: 'chain',
        broken: { streamId: childStream, revision: 0, reason: 'content' },
      });
    }, 90_000);

    it("(d) a child's site credential cannot read or act on another child's workloads, and nothing is written", async () => {
      const events = await taken(await submit(500));
      const delegated = events.find((e) => isEventOf(e, 'AllocationDelegated'))!;
      const owner = (delegated.data as { siteId: string }).siteId as 'child-a' | 'child-b';
      expect(['child-a', 'child-b']).toContain(owner);
      const other = owner === 'child-a' ? 'child-b' : 'child-a';
      const delegationId = (delegated.data as { allocationId: string }).allocationId;
      const credentialOf = (name: string) =>
        (JSON.parse(readFileSync(join(dir, `${name}.credential`), 'utf8')) as { credential: string })
          .credential;
      const otherCredential = credentialOf(other);
      const parentBefore = (await sites.parent.store.readStream(workloadStream(delegated.data.workloadId)))
        .length;
      const childBefore = (await sites[owner].store.readStream(workloadStream(siteWorkload(events)))).length;

      // read: the owner's part of the chain, asked with the other child's key in the parent's name
      const chainRequest = { siteId: 'parent', delegationId, namespace: 'default' };
      const read = await call(
        `${sites[owner].url}/v1/federation/delegations/${delegationId}/chain`,
        'POST',
        sealSigned(otherCredential, DELEGATION_CHAIN_PURPOSE, chainRequest, new Date()),
      );
      expect([read.status, read.body.code]).toEqual([401, 'AUTH.INVALID_DELEGATION_SIGNATURE']);
      // act: a status report on the owner's delegation, the other child signing as itself, then as the owner
      const report = {
        delegationId,
        parentWorkloadId: delegated.data.workloadId,
        workloadId: siteWorkload(events),
        revision: 99,
        eventId: randomUUID(),
        status: 'failed',
        exitCode: 1,
        at: new Date().toISOString(),
      };
      const status = (siteId: string) =>
        call(
          `${sites.parent.url}/v1/federation/delegations/${delegationId}/status`,
          'POST',
          sealSigned(otherCredential, DELEGATION_STATUS_PURPOSE, { ...report, siteId }, new Date()),
        );
      const asB = await status(other);
      expect([asB.status, asB.body.code]).toEqual([403, 'FEDERATION.DELEGATION_NOT_TO_SITE']);
      const asA = await status(owner);
      expect([asA.status, asA.body.code]).toEqual([401, 'AUTH.INVALID_DELEGATION_SIGNATURE']);
      // a summary in the owner's name with the other child's credential
      const summary = await call(
        `${sites.parent.url}/v1/federation/sites/${owner}/summaries`,
        'POST',
        {},
        { authorization: `Bearer ${otherCredential}` },
      );
      expect([summary.status, summary.body.code]).toEqual([403, 'AUTH.SITE_CREDENTIAL_FOREIGN']);
      expect(await sites.parent.store.readStream(workloadStream(delegated.data.workloadId))).toHaveLength(
        parentBefore,
      );
      expect(await sites[owner].store.readStream(workloadStream(siteWorkload(events)))).toHaveLength(
        childBefore,
      );
    }, 90_000);
  },
);
