import { randomUUID } from 'node:crypto';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { DELEGATION_STATUS_PURPOSE, sealSigned } from './signed-message';
import { TwoSites, codeOf } from './two-sites.testing';

/**
 * Bad input between sites about delegations, a parent and a child hub on their own databases (`TwoSites`): status
 * reports on the parent, control and output requests on the child; each refused with a dotted code, nothing written.
 */
describeWithPostgres('federation: status reports and control requests refused', () => {
  const sites = new TwoSites();

  beforeAll(() => sites.start(), 90_000);
  afterAll(() => sites.close());

  it('refuses bad status reports with a dotted code, writing nothing', async () => {
    const { workloadId, delegationId } = await sites.delegatedOnParent();
    const issued = await sites.parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'child-b',
      ttlSeconds: 600,
    });
    const other = await sites.parent.request('POST', '/v1/federation/sites', {
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
      sites.parent.request('POST', `/v1/federation/delegations/${id}/status`, body);
    const sealed = (key: string, value: unknown, at = new Date()) =>
      sealSigned(key, DELEGATION_STATUS_PURPOSE, value, at);
    await sites.handToChild(workloadId, delegationId);
    await eventuallyExpect(async () =>
      expect(await sites.types(sites.parent, workloadId)).toContain('DelegationAccepted'),
    );
    const before = await sites.types(sites.parent, workloadId);
    const cases: Array<[string, unknown, number, string, string?]> = [
      ['foreign key', sealed(`${sites.credential}x`, report), 401, 'AUTH.INVALID_DELEGATION_SIGNATURE'],
      [
        'another purpose',
        sealSigned(sites.credential, 'hcn-delegation', report, new Date()),
        401,
        'AUTH.INVALID_DELEGATION_SIGNATURE',
      ],
      [
        'stale',
        sealed(sites.credential, report, new Date(Date.now() - 120_000)),
        401,
        'AUTH.DELEGATION_STALE',
      ],
      [
        'unknown site',
        sealed(sites.credential, { ...report, siteId: 'nowhere' }),
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
        sealed(sites.credential, { ...report, delegationId: randomUUID() }),
        404,
        'FEDERATION.DELEGATION_NOT_FOUND',
        'path',
      ],
      [
        'another delegation than the path',
        sealed(sites.credential, { ...report, delegationId: randomUUID() }),
        400,
        'FEDERATION.DELEGATION_MALFORMED',
      ],
      [
        'not a report',
        sealed(sites.credential, { ...report, status: 'exploded' }),
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
    expect(await sites.types(sites.parent, workloadId)).toEqual(before);
  }, 60_000);

  it('refuses bad control and output requests on the child with a dotted code, changing nothing', async () => {
    const { workloadId, delegationId, childWorkloadId } = await sites.runningDelegation();
    const control = (action: string) => ({
      delegationId,
      parentSiteId: 'parent',
      namespace: 'default',
      action,
      reason: 'spec',
    });
    const logs = { delegationId, parentSiteId: 'parent', namespace: 'default', lines: 10 };
    const before = await sites.types(sites.child, childWorkloadId);
    const cases: Array<[string, string, unknown, number, string]> = [
      [
        'control, foreign key',
        'control',
        sealSigned(`${sites.credential}x`, 'hcn-delegation-control', control('stop'), new Date()),
        401,
        'AUTH.INVALID_DELEGATION_SIGNATURE',
      ],
      [
        'control, a status purpose',
        'control',
        sealSigned(sites.credential, DELEGATION_STATUS_PURPOSE, control('stop'), new Date()),
        401,
        'AUTH.INVALID_DELEGATION_SIGNATURE',
      ],
      [
        'control, another site',
        'control',
        sealSigned(
          sites.credential,
          'hcn-delegation-control',
          { ...control('stop'), parentSiteId: 'other' },
          new Date(),
        ),
        401,
        'AUTH.UNKNOWN_PARENT_SITE',
      ],
      [
        'control, another namespace',
        'control',
        sealSigned(
          sites.credential,
          'hcn-delegation-control',
          { ...control('stop'), namespace: 'research' },
          new Date(),
        ),
        404,
        'FEDERATION.DELEGATION_NOT_FOUND',
      ],
      [
        'control, no such action',
        'control',
        sealSigned(sites.credential, 'hcn-delegation-control', control('explode'), new Date()),
        400,
        'FEDERATION.DELEGATION_MALFORMED',
      ],
      [
        'logs, foreign key',
        'logs',
        sealSigned(`${sites.credential}x`, 'hcn-delegation-logs', logs, new Date()),
        401,
        'AUTH.INVALID_DELEGATION_SIGNATURE',
      ],
      [
        'logs, too many lines',
        'logs',
        sealSigned(sites.credential, 'hcn-delegation-logs', { ...logs, lines: 10 ** 6 }, new Date()),
        400,
        'FEDERATION.DELEGATION_MALFORMED',
      ],
      ['logs, not an envelope', 'logs', logs, 400, 'FEDERATION.DELEGATION'],
    ];
    for (const [name, route, body, status, code] of cases) {
      const refused = await sites.child.request(
        'POST',
        `/v1/federation/delegations/${delegationId}/${route}`,
        body,
      );
      expect([name, refused.status, codeOf(refused.body)]).toEqual([name, status, code]);
    }
    expect(await sites.types(sites.child, childWorkloadId)).toEqual(before);
    const status = await sites.child.request(
      'POST',
      `/v1/federation/delegations/${delegationId}/control`,
      sealSigned(sites.credential, 'hcn-delegation-control', control('status'), new Date()),
    );
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body.report.payload)).toMatchObject({
      delegationId,
      parentWorkloadId: workloadId,
      status: 'running',
    });
  }, 60_000);
});
