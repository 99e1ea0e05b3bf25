import { requestContext, toNewEvents } from '@hcn/commands';
import { delegationRequestSchema, isEventOf, workloadSpecSchema } from '@hcn/contracts';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHcn } from '../../../../cli/src/testing/run-hcn';
import {
  HubHarness,
  TEST_ADMIN_TOKEN,
  processSpec,
  registerNode,
  signedReport,
  startHubHarness,
} from '../../testing/hub-harness';
import { sealDelegation } from '../delegation/delegation-envelope';
import { sealSigned } from '../delegation/signed-message';
import { DELEGATION_CHAIN_PURPOSE } from './delegated-chain';
import { onDatabase, rewriteWithFreshHashes } from '../../testing/tamper';

const FAST = {
  HCN_FEDERATION_SITE_TTL_SECONDS: '2',
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
};

/** The dotted code of an error answer. */
const codeOf = (body: any): string | undefined => body?.code ?? body?.error?.code;

/** A child site: its hub, its node and the credential the parent issued it. */
interface Child {
  readonly hub: HubHarness;
  readonly nodeId: string;
  /** The node's registration answer (its command key signs its reports). */
  readonly node: { nodeId: string; commandKey: string };
  readonly credential: string;
}

/**
 * Stitched audit across sites: a parent and two children on their own databases. A workload of the parent is
 * handed to child A (the parent's stream records the hand-over and acceptance as its side of delegation does; the
 * child admits the signed request and runs it in its own log, delegatedFrom the parent). The parent's chain API stitches child A's chain in at the hop, with A's stream head;
 * verify recomputes both streams, so an event changed in A's database or in the parent's is reported; child B's
 * credential reads nothing of A's delegated workloads.
 */
describeWithPostgres('federation: stitched audit across sites', () => {
  let parent: HubHarness;
  let a: Child;
  let b: Child;
  let dir: string;
  let closed = false;
  let reportSeq = 0;
  /** Parent workloads whose child part was changed in the child's database (verify must name them). */
  const tampered: string[] = [];

  async function startChild(siteId: string): Promise<Child> {
    const issued = await parent.request('POST', '/v1/federation/join-tokens', { siteId, ttlSeconds: 600 });
    const credentialFile = join(dir, `${siteId}.credential`);
    const hub = await startHubHarness({
      ...FAST,
      HCN_NODE_TTL_SECONDS: '600', // no agent heartbeats here: the node stays online for the spec
      HCN_SITE_ID: siteId,
      HCN_FEDERATION_PARENT_URL: parent.hub.url,
      HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
      HCN_FEDERATION_CREDENTIAL_FILE: credentialFile,
      HCN_FEDERATION_NAMESPACES: 'default',
    });
    const node = await registerNode(hub, { cpuCores: 4 });
    const { nodeId } = node;
    await eventually(`${siteId} registered with its parent`, async () => {
      const link = await hub.request('GET', '/v1/federation/link');
      return link.body.parent?.registered === true;
    });
    const { credential } = JSON.parse(readFileSync(credentialFile, 'utf8')) as { credential: string };
    return { hub, nodeId, node, credential };
  }

  /**
   * A workload of the parent handed to `child` as the parent's side of delegation records it: submitted and
   * delegated (one append), the signed request the child admits, the child's acceptance.
   */
  async function delegatedWorkload(child: Child, siteId: string) {
    const workloadId = randomUUID();
    const delegationId = randomUUID();
    const spec = workloadSpecSchema.parse({ ...processSpec(), namespace: 'default' });
    const context = requestContext({ kind: 'user', id: 'admin' }, new Date());
    const kept = [['n', `site:${siteId}`, 10]];
    const decision = {
      hops: [{ scope: 'root', policy: 'spread', to: 0, members: 1, judged: 1, kept }],
      topK: 5,
    };
    const base = { workloadId, allocationId: delegationId, instance: 0, attempt: 0, generation: 1, siteId };
    const stream = `workload-${workloadId}`;
    const delegated = { ...base, relation: 'child', resources: spec.resources, decision };
    const submitted = [
      { type: 'WorkloadSubmitted', data: { workloadId, spec } },
      { type: 'AllocationDelegated', data: delegated },
    ];
    await parent.store.append(stream, toNewEvents(submitted, context), 'no_stream');
    const request = delegationRequestSchema.parse({
      delegationId,
      parentSiteId: 'parent',
      parentWorkloadId: workloadId,
      namespace: 'default',
      spec,
    });
    const answer = await child.hub.request(
      'POST',
      '/v1/federation/delegations',
      sealDelegation(child.credential, request, new Date()),
    );
    expect(answer.body).toMatchObject({ outcome: 'accepted' });
    const siteWorkloadId: string = answer.body.workloadId;
    const acceptedAt = new Date().toISOString();
    const accepted = { workloadId, allocationId: delegationId, siteId, siteWorkloadId, acceptedAt };
    // the child reports the acceptance (with its stream's head), or the parent's own sender sent the same request
    // (idempotent) and recorded the answer: either records DelegationAccepted; else it is recorded here
    const acceptedHere = async () =>
      (await parent.store.readStream(stream)).some((e) => e.type === 'DelegationAccepted');
    await eventually('the acceptance recorded', acceptedHere, 3000).catch(() => undefined);
    const recorded = await parent.store.readStream(stream);
    if (!recorded.some((e) => e.type === 'DelegationAccepted')) {
      const events = toNewEvents([{ type: 'DelegationAccepted', data: accepted }], context);
      await parent.store.append(stream, events, recorded.length - 1).catch((error: unknown) => {
        if (codeOf(error) !== 'EVENTSTORE.WRONG_EXPECTED_REVISION') throw error;
      });
    }
    return { workloadId, delegationId, siteWorkloadId };
  }

  /** The child's node reports the child's allocation of `siteWorkloadId` started, as its agent would. */
  async function nodeStarted(child: Child, siteWorkloadId: string): Promise<void> {
    const events = await child.hub.store.readStream(`workload-${siteWorkloadId}`);
    const placed = events.find((e) => isEventOf(e, 'AllocationPlaced'));
    if (!isEventOf(placed, 'AllocationPlaced')) throw new Error('not placed on the child');
    const report = {
      kind: 'allocation',
      nodeId: child.nodeId,
      domainId: 'default',
      seq: ++reportSeq,
      sentAt: new Date().toISOString(),
      workloadId: siteWorkloadId,
      allocationId: placed.data.allocationId,
      status: 'started',
      at: new Date().toISOString(),
      pid: 4242,
    };
    const value = signedReport(child.node, report);
    await child.hub.bus.publish(AGENT_REPORTS_TOPIC, [{ key: child.nodeId, value }]);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-stitched-'));
    parent = await startHubHarness({ ...FAST, HCN_SITE_ID: 'parent' });
    a = await startChild('child-a');
    b = await startChild('child-b');
  }, 120_000);
  afterAll(async () => {
    if (!closed) await b?.hub.close();
    await a?.hub.close();
    await parent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stitches the child's chain into the parent's at the cross-site hop, with the child stream's head", async () => {
    const w = await delegatedWorkload(a, 'child-a');
    const chain = await parent.request('GET', `/v1/audit/workloads/${w.workloadId}/chain`);
    expect(chain.status).toBe(200);
    expect(chain.body.decisions[0].outcome).toMatchObject({
      kind: 'placed',
      allocationId: w.delegationId,
      nodeId: 'site:child-a',
      site: { siteId: 'child-a', relation: 'child' },
    });
    const [part] = chain.body.sites;
    expect(part).toMatchObject({
      siteId: 'child-a',
      delegationId: w.delegationId,
      hopSeq: 0,
      workloadId: w.siteWorkloadId,
      streamId: `workload-${w.siteWorkloadId}`,
      verification: { ok: true, problems: [] },
    });
    const childStream = await a.hub.store.readStream(`workload-${w.siteWorkloadId}`);
    const last = childStream[childStream.length - 1];
    expect(part.head).toEqual({ revision: last.revision, hash: last.metadata.hash });
    expect(part.chain.decisions[0].outcome).toMatchObject({ kind: 'placed', nodeId: a.nodeId });
    const text = await parent.request('GET', `/v1/audit/workloads/${w.workloadId}/chain?format=text`);
    expect(text.body).toContain('delegated');
    expect(text.body).toContain(`site child-a, delegation ${w.delegationId} at hop 0`);
    expect(text.body).toContain(`on node ${a.nodeId}`);
  });

  it("a workload submitted on the parent and placed on a child's node: one chain, the parent's hop to the site then the child's", async () => {
    const submitted = await parent.request('POST', '/v1/workloads', processSpec({ name: 'stitched' }));
    expect(submitted.status).toBe(201);
    const workloadId: string = submitted.body.workloadId;
    await eventually(
      'the parent records the child taking it',
      async () =>
        (await parent.store.readStream(`workload-${workloadId}`)).some(
          (e) => e.type === 'DelegationAccepted',
        ),
      30_000,
    );
    const chain = await parent.request('GET', `/v1/audit/workloads/${workloadId}/chain`);
    const outcome = chain.body.decisions[0].outcome;
    expect(outcome.site.siteId).toMatch(/^child-[ab]$/);
    const child = outcome.site.siteId === 'child-a' ? a : b;
    const [part] = chain.body.sites;
    expect(part).toMatchObject({ siteId: outcome.site.siteId, verification: { ok: true } });
    expect(part.chain.decisions[0].outcome).toMatchObject({ kind: 'placed', nodeId: child.nodeId });
    expect(part.chain.decisions[0].hops.length).toBeGreaterThan(0);
  });

  it("reports an event changed in the child's database, and one changed in the parent's", async () => {
    const w = await delegatedWorkload(a, 'child-a');
    const verify = () => parent.request('GET', `/v1/audit/workloads/${w.workloadId}/verify`);
    expect((await verify()).body).toMatchObject({ ok: true, complete: true, local: { ok: true } });

    const changed = await onDatabase(
      a.hub,
      `UPDATE hcn_events SET data = jsonb_set(data, '{spec,name}', '"not-the-job"') WHERE stream_id = $1 AND revision = 0`,
      [`workload-${w.siteWorkloadId}`],
    );
    expect(changed).toBe(1);
    const child = await verify();
    expect(child.body).toMatchObject({ ok: false, complete: true, local: { ok: true } });
    expect(child.body.sites[0].verification.problems).toEqual([
      expect.objectContaining({
        kind: 'chain',
        broken: expect.objectContaining({ revision: 0, reason: 'content' }),
      }),
    ]);

    await onDatabase(
      parent,
      `UPDATE hcn_events SET data = jsonb_set(data, '{siteId}', '"child-b"') WHERE stream_id = $1 AND revision = 1`,
      [`workload-${w.workloadId}`],
    );
    const both = await verify();
    expect(both.body).toMatchObject({
      ok: false,
      local: { ok: false, firstBroken: { revision: 1, reason: 'content' } },
    });
  });

  it("reports a child stream rewritten with consistent hashes by the heads the parent's log recorded", async () => {
    const w = await delegatedWorkload(a, 'child-a');
    const stream = `workload-${w.workloadId}`;
    await nodeStarted(a, w.siteWorkloadId);
    // the child reports the start with its stream's revision and hash; the parent records them
    await eventually(
      'a head of the child stream recorded by the parent',
      async () =>
        (await parent.store.readStream(stream)).some((e) => 'siteHash' in e.data && !!e.data.siteHash),
      30_000,
    );
    const verify = () => parent.request('GET', `/v1/audit/workloads/${w.workloadId}/verify`);
    const before = await verify();
    expect(before.body).toMatchObject({ ok: true });
    expect(before.body.sites[0].verification.anchorsChecked).toBeGreaterThan(0);

    await rewriteWithFreshHashes(a.hub, `workload-${w.siteWorkloadId}`);
    tampered.push(w.workloadId);
    const after = await verify();
    expect(after.body.ok).toBe(false);
    const problems = after.body.sites[0].verification.problems;
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p: { kind: string }) => p.kind === 'anchor')).toBe(true);
  });

  it('hcn audit replay and verify --workload stitch and check the child part from the log and the hub', async () => {
    const w = await delegatedWorkload(a, 'child-a');
    const env = { DATABASE_URL: parent.database.url, HCN_ADDR: parent.hub.url, HCN_TOKEN: TEST_ADMIN_TOKEN };
    const replay = await runHcn(env, ['audit', 'replay', w.workloadId]);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toContain(
      `site child-a, delegation ${w.delegationId} at hop 0: workload ${w.siteWorkloadId}`,
    );
    expect(replay.stdout).toContain('chain intact');
    const intact = await runHcn(env, ['audit', 'verify', '--workload', w.workloadId]);
    expect([intact.status, JSON.parse(intact.stdout).ok]).toEqual([0, true]);
    tampered.push(w.workloadId);
    await onDatabase(
      a.hub,
      `UPDATE hcn_events SET data = jsonb_set(data, '{spec,name}', '"not-the-job"') WHERE stream_id = $1 AND revision = 0`,
      [`workload-${w.siteWorkloadId}`],
    );
    const broken = await runHcn(env, ['audit', 'verify', '--workload', w.workloadId]);
    expect(broken.status).toBe(1);
    expect(JSON.parse(broken.stdout).sites[0].verification.problems[0]).toMatchObject({ kind: 'chain' });
    // no hub to relay the child's part: nothing broken found, but not all checked (exit 3)
    const alone = await runHcn({ ...env, HCN_ADDR: 'http://127.0.0.1:9' }, [
      'audit',
      'verify',
      '--workload',
      w.workloadId,
    ]);
    expect([alone.status, JSON.parse(alone.stdout).complete]).toEqual([3, false]);
  });

  it("refuses another child's credential and answers nothing of a workload it did not delegate", async () => {
    const w = await delegatedWorkload(a, 'child-a');
    const ask = (credential: string, siteId: string, delegationId = w.delegationId, namespace = 'default') =>
      a.hub.request(
        'POST',
        `/v1/federation/delegations/${delegationId}/chain`,
        sealSigned(credential, DELEGATION_CHAIN_PURPOSE, { siteId, delegationId, namespace }, new Date()),
      );
    const cases: Array<[string, Promise<{ status: number; body: any }>, number, string]> = [
      ["B's credential as the parent", ask(b.credential, 'parent'), 401, 'AUTH.INVALID_DELEGATION_SIGNATURE'],
      ["B's credential as B", ask(b.credential, 'child-b'), 401, 'AUTH.UNKNOWN_PARENT_SITE'],
      [
        'a delegation never made',
        ask(a.credential, 'parent', randomUUID()),
        404,
        'FEDERATION.DELEGATION_NOT_FOUND',
      ],
      [
        'another namespace',
        ask(a.credential, 'parent', w.delegationId, 'research'),
        404,
        'FEDERATION.DELEGATION_NOT_FOUND',
      ],
    ];
    for (const [name, answer, status, code] of cases) {
      const got = await answer;
      expect([name, got.status, codeOf(got.body), got.body.events]).toEqual([name, status, code, undefined]);
    }
    // the parent's key reads it (what the parent's chain API does)
    const genuine = await ask(a.credential, 'parent');
    expect([genuine.status, genuine.body.workloadId]).toEqual([200, w.siteWorkloadId]);
    // B's credential is no token of the parent's API either
    const asBearer = await parent.request('GET', `/v1/audit/workloads/${w.workloadId}/chain`, undefined, {
      authorization: `Bearer ${b.credential}`,
    });
    expect(asBearer.status).toBe(401);
  });

  it('shows a site that cannot be asked as not read, and verify as incomplete', async () => {
    const w = await delegatedWorkload(b, 'child-b');
    await b.hub.close();
    closed = true;
    const verify = await parent.request('GET', `/v1/audit/workloads/${w.workloadId}/verify`);
    expect(verify.body).toMatchObject({ ok: false, complete: false, local: { ok: true } });
    expect(verify.body.sites[0].unavailable.code).toBe('FEDERATION.SITE_UNREACHABLE');
  });

  it('verify of the whole log with sites=true checks every part: the changed ones broken, the stopped child not read', async () => {
    const bad = await parent.request('GET', '/v1/audit/verify?sites=maybe');
    expect([bad.status, codeOf(bad.body)]).toEqual([400, 'AUDIT.SITES_INVALID']);
    const plain = await parent.request('GET', '/v1/audit/verify');
    expect(plain.body.sites).toBeUndefined();
    const report = await parent.request('GET', '/v1/audit/verify?sites=true');
    expect(report.status).toBe(200);
    const { sites } = report.body;
    expect(report.body.ok).toBe(false);
    expect(sites.partsChecked).toBeGreaterThan(sites.brokenCount);
    expect(sites.broken.map((p: { localWorkloadId: string }) => p.localWorkloadId)).toEqual(
      expect.arrayContaining(tampered),
    );
    expect(sites.unavailable.map((p: { siteId: string }) => p.siteId)).toContain('child-b');
    const env = { DATABASE_URL: parent.database.url, HCN_ADDR: parent.hub.url, HCN_TOKEN: TEST_ADMIN_TOKEN };
    const cli = await runHcn(env, ['audit', 'verify', '--sites', '--quiet']);
    expect(cli.status).toBe(1);
    expect(JSON.parse(cli.stdout).sites.brokenCount).toBe(sites.brokenCount);
  });
});
