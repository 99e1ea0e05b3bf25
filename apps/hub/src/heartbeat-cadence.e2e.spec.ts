import { nodeStream } from '@hcn/contracts';
import { describeWithPostgres, eventually, sleep } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { HubHarness, registrationBody, startHubHarness } from './testing/hub-harness';

/** A registration answer, as far as this spec reads it. */
interface Answer {
  nodeId: string;
  credential: string;
  heartbeatIntervalSeconds: number;
  nodeTtlSeconds: number;
}

describeWithPostgres('heartbeat cadence scaled to the fleet (real PostgreSQL, in-process bus)', () => {
  let h: HubHarness;
  // at most 4 heartbeats/s: 2 nodes keep the configured 0.5 s (TTL 1.5 s); 8 nodes are told 2 s (TTL 6 s)
  beforeAll(
    async () =>
      (h = await startHubHarness({
        HCN_HEARTBEAT_INTERVAL_SECONDS: '0.5',
        HCN_NODE_TTL_SECONDS: '1.5',
        HCN_HEARTBEATS_MAX_PER_SECOND: '4',
      })),
  );
  afterAll(async () => h?.close());

  const register = async (): Promise<Answer> => {
    const response = await h.request(
      'POST',
      '/v1/agents/register',
      registrationBody({ nodeId: randomUUID(), hostname: `n-${randomUUID().slice(0, 8)}` }),
    );
    expect(response.status).toBe(200);
    return response.body as Answer;
  };
  const me = async (credential: string) =>
    (await h.request('GET', '/v1/agents/me', undefined, { authorization: `Bearer ${credential}` })).body as {
      heartbeatIntervalSeconds: number;
      nodeTtlSeconds: number;
    };

  it('tells a large fleet a longer interval and TTL, and judges its silence by that TTL', async () => {
    const first = await register();
    expect(first).toMatchObject({ heartbeatIntervalSeconds: 0.5, nodeTtlSeconds: 1.5 });
    const fleet = [first];
    for (let i = 1; i < 8; i++) fleet.push(await register());
    const registeredAt = Date.now();
    // every node learns the fleet's cadence at its next identity check, and new nodes at registration
    await eventually(
      'the early node is told 2 s',
      async () => (await me(first.credential)).heartbeatIntervalSeconds === 2,
    );
    expect(await me(first.credential)).toMatchObject({ heartbeatIntervalSeconds: 2, nodeTtlSeconds: 6 });
    // the hub counts the fleet from the log: the ninth is told its cadence once all eight are counted
    await eventually('all eight nodes counted', () =>
      fleet.every((node) => h.hub.liveness.get(node.nodeId) !== undefined),
    );
    const late = await register(); // the ninth: ceil(9 / 4) = 3 s, TTL 9 s
    expect(late).toMatchObject({ heartbeatIntervalSeconds: 3, nodeTtlSeconds: 9 });
    fleet.push(late);

    // silent for twice the configured TTL: still online, the scaled TTL has not passed
    await sleep(Math.max(0, registeredAt + 3000 - Date.now()));
    for (const node of fleet) expect(h.hub.liveness.get(node.nodeId)?.status).toBe('online');

    // past the scaled TTL: offline, the event names the TTL it was judged by
    await eventually(
      'the silent fleet goes offline',
      async () => fleet.every((node) => h.hub.liveness.get(node.nodeId)?.status === 'offline'),
      20_000,
    );
    const silentFor = Date.now() - registeredAt;
    expect(silentFor).toBeGreaterThanOrEqual(9000);
    const offline = (await h.store.readStream(nodeStream(first.nodeId))).find(
      (e) => e.type === 'NodeWentOffline',
    );
    expect(offline?.data).toMatchObject({ ttlSeconds: 9 });
  }, 40_000);
});
