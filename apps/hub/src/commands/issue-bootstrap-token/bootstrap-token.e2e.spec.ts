import { describeWithPostgres } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { HubHarness, registrationBody, startHubHarness } from '../../testing/hub-harness';

/** Per-node bootstrap tokens on a hub without a shared join token (HCN_JOIN_TOKEN unset). */
describeWithPostgres('per-node bootstrap tokens (real PostgreSQL)', () => {
  let h: HubHarness;
  beforeAll(async () => (h = await startHubHarness({ HCN_JOIN_TOKEN: '' })));
  afterAll(async () => h?.close());

  const issue = async (body: Record<string, unknown> = {}) => {
    const issued = await h.request('POST', '/v1/nodes/bootstrap-tokens', body);
    expect(issued.status).toBe(200);
    return issued.body as { nodeId: string; token: string; domainId?: string; expiresAt: string };
  };
  const register = (joinToken: string, overrides: Record<string, unknown> = {}, credential?: string) =>
    h.request(
      'POST',
      '/v1/agents/register',
      registrationBody({ joinToken, ...overrides }),
      credential ? { authorization: `Bearer ${credential}` } : undefined,
    );

  it('registers exactly the named node, once; its agent then re-registers with its credential', async () => {
    const issued = await issue({ domainId: 'site-a', ttlSeconds: 600 });
    expect(Date.parse(issued.expiresAt)).toBeGreaterThan(Date.now() + 590_000);
    const first = await register(issued.token);
    expect([first.status, first.body.nodeId]).toEqual([200, issued.nodeId]);
    const replayed = await register(issued.token);
    expect([replayed.status, replayed.body.code]).toEqual([401, 'AUTH.NODE_CREDENTIAL_REQUIRED']);
    const again = await register(issued.token, { nodeId: issued.nodeId }, first.body.credential);
    expect([again.status, again.body.credential]).toEqual([200, first.body.credential]);
  });

  it('refuses another node id or another domain than the token names, writing nothing', async () => {
    const issued = await issue({ domainId: 'site-a' });
    const otherNode = await register(issued.token, { nodeId: randomUUID() });
    expect([otherNode.status, otherNode.body.code]).toEqual([403, 'AUTH.BOOTSTRAP_TOKEN_MISMATCH']);
    const otherDomain = await register(issued.token, { domainId: 'site-b' });
    expect([otherDomain.status, otherDomain.body.code]).toEqual([403, 'AUTH.BOOTSTRAP_TOKEN_MISMATCH']);
    expect((await h.request('GET', `/v1/nodes/${issued.nodeId}`)).status).toBe(404);
  });

  it('takes a chosen node id; refuses ids already registered, viewers and bad bodies', async () => {
    const nodeId = randomUUID();
    const issued = await issue({ nodeId });
    expect(issued.nodeId).toBe(nodeId);
    expect((await register(issued.token, { domainId: 'anywhere' })).status).toBe(200);
    const taken = await h.request('POST', '/v1/nodes/bootstrap-tokens', { nodeId });
    expect([taken.status, taken.body.code]).toEqual([409, 'NODE.ALREADY_REGISTERED']);
    const bad = await h.request('POST', '/v1/nodes/bootstrap-tokens', { ttlSeconds: 5 });
    expect(bad.status).toBe(400);
    const anonymous = await h.request('POST', '/v1/nodes/bootstrap-tokens', {}, { authorization: '' });
    expect(anonymous.status).toBe(401);
  });

  it('refuses the shared join token when none is configured, and forged or unknown tokens', async () => {
    for (const joinToken of ['test-join-token-0123456789', 'boot.e30.forged', 'x'.repeat(40)]) {
      const refused = await register(joinToken);
      expect([refused.status, refused.body.code]).toEqual([401, 'AUTH.INVALID_JOIN_TOKEN']);
    }
  });
});
