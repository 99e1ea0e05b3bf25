import { describeWithPostgres } from '@hcn/testing';
import { Client } from 'pg';
import { HubHarness, registerNode, startHubHarness } from '../../../testing/hub-harness';

const SCOPED = 'verify-team-a-token-0123456789';
const VIEWER = 'verify-viewer-token-0123456789';
const OPERATOR = 'verify-operator-token-0123456789';
const tokens = [
  { name: 'team-a', token: SCOPED, role: 'operator', namespaces: ['team-a'] },
  { name: 'viewer', token: VIEWER, role: 'viewer', namespaces: ['*'] },
  { name: 'ops', token: OPERATOR, role: 'operator', namespaces: ['*'] },
];
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describeWithPostgres('GET /v1/audit/verify: hash-chain tamper evidence (hub, real PostgreSQL)', () => {
  let h: HubHarness;
  let nodeStream: string;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_API_TOKENS: JSON.stringify(tokens), HCN_NODE_TTL_SECONDS: '600' });
    nodeStream = `node-${(await registerNode(h, { hostname: 'v1' })).nodeId}`;
    await registerNode(h, { hostname: 'v2' });
  });
  afterAll(async () => h?.close());

  it('reports an intact log, for all streams and for one, to operators and admins of all namespaces', async () => {
    const all = await h.request('GET', '/v1/audit/verify', undefined, as(OPERATOR));
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ ok: true, brokenCount: 0, broken: [] });
    expect(all.body.streamsChecked).toBeGreaterThanOrEqual(2);
    const one = await h.request('GET', `/v1/audit/verify?stream=${nodeStream}&from=2020-01-01&to=2999-01-01`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ ok: true, streamId: nodeStream, streamsChecked: 1 });
    expect(one.body.from).toBe('2020-01-01T00:00:00.000Z');
  });

  it('refuses viewers and namespace-scoped operators', async () => {
    expect((await h.request('GET', '/v1/audit/verify', undefined, as(VIEWER))).status).toBe(403);
    const scoped = await h.request('GET', '/v1/audit/verify', undefined, as(SCOPED));
    expect([scoped.status, scoped.body.code]).toEqual([403, 'AUTH.NAMESPACE_FORBIDDEN']);
  });

  it.each([
    ['from=yesterday', 'AUDIT.PERIOD_INVALID'],
    ['to=2026-13-01', 'AUDIT.PERIOD_INVALID'],
    ['from=2026-02-01&to=2026-01-01', 'AUDIT.PERIOD_INVALID'],
    ['from=2026-01-01T00:00:00', 'AUDIT.PERIOD_INVALID'],
    ['stream=%24all', 'AUDIT.STREAM_INVALID'],
  ])('answers %s with 400 %s', async (query, code) => {
    const bad = await h.request('GET', `/v1/audit/verify?${query}`);
    expect([bad.status, bad.body.code]).toEqual([400, code]);
  });

  it('answers an unknown stream with 404 AUDIT.STREAM_NOT_FOUND', async () => {
    const missing = await h.request('GET', '/v1/audit/verify?stream=node-nope');
    expect([missing.status, missing.body.code]).toEqual([404, 'AUDIT.STREAM_NOT_FOUND']);
  });

  it('names the event whose stored data was changed', async () => {
    const sql = new Client({ connectionString: h.database.url });
    await sql.connect();
    try {
      const { rows } = await sql.query(
        `UPDATE hcn_events SET data = replace(data::text, '"v1"', '"v9"')::jsonb
         WHERE stream_id = $1 AND revision = 0 RETURNING event_id`,
        [nodeStream],
      );
      expect(rows).toHaveLength(1);
      const report = await h.request('GET', '/v1/audit/verify');
      expect(report.status).toBe(200);
      expect(report.body).toMatchObject({ ok: false, brokenCount: 1 });
      expect(report.body.firstBroken).toMatchObject({
        streamId: nodeStream,
        revision: 0,
        eventId: rows[0].event_id,
        reason: 'content',
      });
    } finally {
      await sql.end();
    }
  });
});
