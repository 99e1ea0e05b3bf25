import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../../hub/src/testing/hub-harness';
import { Agent } from '../agent';
import { loadAgentConfig } from '../config';

/** A harness hub and a real agent on its in-process bus, registered in `domain`. */
export interface HubAndAgent {
  readonly h: HubHarness;
  readonly agent: Agent;
  close(): Promise<void>;
}

/** Starts a harness hub (real PostgreSQL, `hubEnv` on top of its settings) and an agent in a fresh data directory. */
export async function startHubAndAgent(
  domain: string,
  hubEnv: Record<string, string> = {},
): Promise<HubAndAgent> {
  const dataDir = mkdtempSync(join(tmpdir(), `hcn-${domain}-`));
  const h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', ...hubEnv });
  const config = loadAgentConfig({
    HCN_HUB_URL: h.hub.url,
    HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
    HCN_DOMAIN: domain,
    HCN_DATA_DIR: dataDir,
  });
  const agent = new Agent(config, h.bus);
  await agent.start();
  return {
    h,
    agent,
    close: async () => {
      await agent.stop();
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
