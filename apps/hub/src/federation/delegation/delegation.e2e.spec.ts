import { DelegationRequest, delegationRequestSchema } from '@hcn/contracts';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../../testing/hub-harness';
import { federationMac } from '../gossip/gossip-envelope';
import { sealDelegation } from './delegation-envelope';

/** The dotted code of an error answer. */
const codeOf = (body: any): string | undefined => body?.code ?? body?.error?.code;

const FAST = {
  HCN_FEDERATION_SITE_TTL_SECONDS: '2',
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
};

/**
 * The child's side of a delegation: a parent and a child hub on their own databases; the child registered with the
 * parent and serves namespace `default`. A request signed with the credential the two share is admitted and placed
 * by the child's own scheduler, recorded with `delegatedFrom`; a repeat answers the same workload and writes
 * nothing; a request no node fits is rejected with the scheduler's reasons and places nothing; bad input is refused
 * with a dotted code and writes nothing.
 */
describeWithPostgres('federation: a child site takes a delegation from its parent', () => {
  let parent: HubHarness;
  let child: HubHarness;
  let dir: string;
  let credential: string;
  let nodeId: string;
  /** Workloads the child accepted: their streams go on (see `written`). */
  const accepted = new Set<string>();
  /**
   * Events of the child's workloads, quotas and admissions: what a delegation may write. The streams of workloads
   * accepted before are left out: the parent here has none of the workloads it delegates, so the child's status
   * reports of an accepted one are answered FEDERATION.DELEGATION_NOT_FOUND and the child cancels it at any time.
   */
  const written = async () =>
    (
      await child.store.readAll({
        filter: { kind: 'streamPrefix', prefixes: ['workload-', 'quota-', 'admission-'] },
      })
    ).filter((e) => !accepted.has(e.streamId)).length;
  const request = (overrides: Partial<DelegationRequest> = {}): DelegationRequest =>
    delegationRequestSchema.parse({
      delegationId: randomUUID(),
      parentSiteId: 'parent',
      parentWorkloadId: randomUUID(),
      namespace: 'default',
      spec: processSpec({ namespace: overrides.namespace ?? 'default' }),
      ...overrides,
    });
  const delegate = (body: unknown) => child.request('POST', '/v1/federation/delegations', body);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-delegation-'));
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
    nodeId = (await registerNode(child, { cpuCores: 4 })).nodeId;
    await eventually('the child registered with its parent', async () => {
      const link = await child.request('GET', '/v1/federation/link');
      return link.body.parent?.registered === true;
    });
    ({ credential } = JSON.parse(readFileSync(credentialFile, 'utf8')) as { credential: string });
  }, 60_000);
  afterAll(async () => {
    await child?.close();
    await parent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("accepts a delegation signed with the parent's credential, placed on the child's node with delegatedFrom", async () => {
    const asked = request();
    const answer = await delegate(sealDelegation(credential, asked, new Date()));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      outcome: 'accepted',
      delegationId: asked.delegationId,
      created: true,
    });
    const stream = `workload-${answer.body.workloadId}`;
    accepted.add(stream);
    const events = await child.store.readStream(stream);
    // (then cancelled: the parent here does not know the workload it delegates)
    expect(events.map((e) => e.type).slice(0, 2)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
    expect(events[0].data).toMatchObject({
      delegatedFrom: {
        siteId: 'parent',
        workloadId: asked.parentWorkloadId,
        delegationId: asked.delegationId,
      },
    });
    expect(events[0].metadata.actor).toEqual({ kind: 'user', id: 'site:parent' });
    expect((events[1].data as { nodeId: string }).nodeId).toBe(nodeId);

    const before = await written();
    const again = await delegate(sealDelegation(credential, asked, new Date()));
    // (its status may already be the cancel's: stopping)
    expect([again.status, again.body]).toEqual([
      200,
      { ...answer.body, created: false, status: expect.any(String) },
    ]);
    expect(await written()).toBe(before);
    const admitted = (await child.store.readStream(stream)).filter((e) =>
      ['WorkloadSubmitted', 'AllocationPlaced'].includes(e.type),
    );
    expect(admitted).toHaveLength(2);
  });

  it('rejects a delegation no node of the child fits with the scheduler reasons, placing nothing', async () => {
    const workloadEvents = async () =>
      (await child.store.readAll({ filter: { kind: 'streamPrefix', prefixes: ['workload-'] } })).filter(
        (e) => !accepted.has(e.streamId),
      ).length;
    const before = await workloadEvents();
    const asked = request();
    const tooBig = {
      ...asked,
      spec: { ...asked.spec, resources: { ...asked.spec.resources, cpuMillis: 64_000 } },
    };
    const answer = await delegate(sealDelegation(credential, tooBig, new Date()));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      outcome: 'rejected',
      delegationId: asked.delegationId,
      reason: 'unschedulable',
      code: 'WORKLOAD.UNSCHEDULABLE',
    });
    expect(answer.body.reasons).toMatchObject({ 'FILTER.DOMAIN_INSUFFICIENT_CPU': 1 });
    expect(await workloadEvents()).toBe(before);
  });

  it('refuses bad input with a dotted code, writing nothing', async () => {
    const before = await written();
    const good = request();
    const signed = sealDelegation(credential, good, new Date());
    const resigned = (text: string) => {
      const envelope = sealDelegation(credential, good, new Date());
      // arbitrary text signed as the parent would sign it: the MAC covers the text as sent
      return {
        ...envelope,
        payload: text,
        mac: federationMac(credential, 'hcn-delegation', envelope.sentAt, text),
      };
    };
    const cases: Array<[string, unknown, number, string]> = [
      ['no signature', { ...signed, mac: '' }, 401, 'AUTH.INVALID_DELEGATION_SIGNATURE'],
      [
        'foreign key',
        sealDelegation(`${credential}x`, good, new Date()),
        401,
        'AUTH.INVALID_DELEGATION_SIGNATURE',
      ],
      [
        'tampered',
        { ...signed, payload: signed.payload.replace('"job"', '"jab"') },
        401,
        'AUTH.INVALID_DELEGATION_SIGNATURE',
      ],
      [
        'stale',
        sealDelegation(credential, good, new Date(Date.now() - 120_000)),
        401,
        'AUTH.DELEGATION_STALE',
      ],
      [
        'unknown parent',
        sealDelegation(credential, { ...good, parentSiteId: 'other' }, new Date()),
        401,
        'AUTH.UNKNOWN_PARENT_SITE',
      ],
      ['not an envelope', good, 400, 'FEDERATION.DELEGATION'],
      ['not JSON', resigned('{nope'), 400, 'FEDERATION.DELEGATION_MALFORMED'],
      [
        'no spec',
        resigned(JSON.stringify({ ...good, spec: undefined })),
        400,
        'FEDERATION.DELEGATION_MALFORMED',
      ],
      [
        'namespace not served',
        sealDelegation(credential, request({ namespace: 'research' }), new Date()),
        403,
        'FEDERATION.NAMESPACE_NOT_SERVED',
      ],
    ];
    for (const [name, body, status, code] of cases) {
      const refused = await delegate(body);
      expect([name, refused.status, codeOf(refused.body)]).toEqual([name, status, code]);
    }
    // a site with no parent takes no delegation
    const orphan = await parent.request('POST', '/v1/federation/delegations', signed);
    expect([orphan.status, codeOf(orphan.body)]).toEqual([401, 'AUTH.UNKNOWN_PARENT_SITE']);
    expect(await written()).toBe(before);
  });
});
