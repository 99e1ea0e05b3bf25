import { heartbeatStream } from '@hcn/contracts';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../../hub/src/testing/hub-harness';
import { Agent } from '../agent';
import { loadAgentConfig } from '../config';
import type { Outbox } from './outbox';

describeWithPostgres("the agent's report pipeline (hub + agent, real PostgreSQL)", () => {
  let h: HubHarness;
  let agent: Agent;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-flush-'));
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', HCN_HEARTBEAT_INTERVAL_SECONDS: '0.3' });
    const config = loadAgentConfig({
      HCN_HUB_URL: h.hub.url,
      HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
      HCN_DOMAIN: 'site-flush',
      HCN_DATA_DIR: dataDir,
    });
    agent = new Agent(config, h.bus);
    await agent.start();
  });
  afterAll(async () => {
    await agent?.stop();
    await h?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a flush that throws (its disk write failed) does not wedge the ones after it', async () => {
    const outbox = (agent as unknown as { outbox: Outbox<unknown> }).outbox;
    const acknowledge = outbox.acknowledge.bind(outbox);
    let failures = 2;
    outbox.acknowledge = (seq: number) => {
      if (failures-- > 0) throw new Error('ENOSPC: no space left on device');
      acknowledge(seq);
    };
    const nodeId = agent.nodeId as string;
    const stored = async () => (await h.store.readStream(heartbeatStream(nodeId))).length;
    const before = await stored();
    await eventually(
      'heartbeats flow again after the failed flushes',
      async () => (await stored()) >= before + 5,
      15000,
    );
    expect(failures).toBeLessThan(0);
    await eventually('the outbox drains', () => agent.pendingReports <= 1, 5000);
  });
});
