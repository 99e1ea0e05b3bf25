import { heartbeatStream } from '@hcn/contracts';
import { describeWithPostgres, eventually } from '@hcn/testing';
import type { HubHarness } from '../../../hub/src/testing/hub-harness';
import type { Agent } from '../agent';
import { HubAndAgent, startHubAndAgent } from '../testing/hub-and-agent';
import type { Outbox } from './outbox';

describeWithPostgres("the agent's report pipeline (hub + agent, real PostgreSQL)", () => {
  let h: HubHarness;
  let agent: Agent;
  let running: HubAndAgent;
  beforeAll(async () => {
    running = await startHubAndAgent('site-flush', { HCN_HEARTBEAT_INTERVAL_SECONDS: '0.3' });
    ({ h, agent } = running);
  });
  afterAll(async () => running?.close());

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
