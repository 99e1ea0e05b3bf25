import { heartbeatStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';

/** A real agent joining a hub that has no shared join token, with an admin's per-node bootstrap token. */
describeWithPostgres('agent joining with a per-node bootstrap token (real PostgreSQL)', () => {
  let dataDir: string;
  let h: HubHarness | undefined;
  let agent: Agent | undefined;
  const bus = new MemoryMessageBus();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-boot-'));
    h = await startHubHarness({ HCN_JOIN_TOKEN: '' }, bus);
  });
  afterAll(async () => {
    await agent?.stop();
    await h?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers as the node the token names, heartbeats, and restarts on its credential after the token expired', async () => {
    const hub = h as HubHarness;
    const issued = await hub.request('POST', '/v1/nodes/bootstrap-tokens', {
      domainId: 'site-boot',
      ttlSeconds: 60,
    });
    expect(issued.status).toBe(200);
    const config = loadAgentConfig({
      HCN_HUB_URL: hub.hub.url,
      HCN_JOIN_TOKEN: issued.body.token,
      HCN_DOMAIN: 'site-boot',
      HCN_DATA_DIR: dataDir,
    });
    agent = new Agent(config, bus);
    await agent.start();
    expect(agent.nodeId).toBe(issued.body.nodeId);
    expect(readFileSync(join(dataDir, 'node-id'), 'utf8').trim()).toBe(issued.body.nodeId);
    await eventually(
      'heartbeats of the bootstrapped node',
      async () => (await hub.store.readStream(heartbeatStream(issued.body.nodeId))).length >= 1,
      10000,
    );
    await agent.stop();
    // a token whose claims were altered is no token at all: the restart rides on the stored credential
    const forged = `${issued.body.token.slice(0, -4)}AAAA`;
    agent = new Agent({ ...config, joinToken: forged }, bus);
    await agent.start();
    expect(agent.nodeId).toBe(issued.body.nodeId);
  });
});
