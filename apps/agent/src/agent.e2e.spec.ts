import { heartbeatStream, nodeStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../hub/src/testing/hub-harness';
import { freePort } from '../../../test/services/ports';
import { Agent } from './agent';
import { loadAgentConfig } from './config';

/** The agent against a real hub (real PostgreSQL, in-process bus): registration, heartbeats, a hub that forgot it. */
describeWithPostgres('agent with a hub (real PostgreSQL)', () => {
  let dataDir: string;
  let first: HubHarness | undefined;
  let second: HubHarness | undefined;
  let agent: Agent | undefined;
  const bus = new MemoryMessageBus();

  beforeAll(() => (dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-'))));
  afterAll(async () => {
    await agent?.stop();
    await first?.close().catch(() => undefined);
    await second?.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers, heartbeats, and registers again with the same id when the hub lost its store', async () => {
    const port = String(await freePort());
    first = await startHubHarness({ HCN_HTTP_PORT: port }, bus);
    const config = loadAgentConfig({
      HCN_HUB_URL: first.hub.url,
      HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
      HCN_DOMAIN: 'site-agent',
      HCN_DATA_DIR: dataDir,
    });
    agent = new Agent(config, bus, { identityCheckEvery: 2 });
    await agent.start();
    const nodeId = agent.nodeId!;
    expect(readFileSync(join(dataDir, 'node-id'), 'utf8').trim()).toBe(nodeId);
    const store1 = first.store;
    await eventually(
      'heartbeats in the first store',
      async () => (await store1.readStream(heartbeatStream(nodeId))).length >= 2,
    );

    // The hub comes back on the same address with a fresh, empty store.
    await first.close();
    first = undefined;
    second = await startHubHarness({ HCN_HTTP_PORT: port }, bus);
    const store2 = second.store;
    await eventually(
      'registered again in the new store',
      async () => (await store2.readStream(nodeStream(nodeId))).length > 0,
      15000,
    );
    expect((await store2.readStream(nodeStream(nodeId)))[0].type).toBe('NodeRegistered');
    await eventually(
      'heartbeats in the new store',
      async () => (await store2.readStream(heartbeatStream(nodeId))).length >= 1,
      15000,
    );
    expect(agent.nodeId).toBe(nodeId);
  }, 60000);
});
