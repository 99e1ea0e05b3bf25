import { MemoryMessageBus } from '@hcn/messaging';
import { startMetricsServer } from '@hcn/platform';
import { AgentMetrics } from './agent-metrics';

describe("the agent's /metrics", () => {
  it('serves running allocations, outbox depth, reports sent and failed, and build info over its own listener', async () => {
    const metrics = new AgentMetrics();
    const bus = new MemoryMessageBus();
    const counted = metrics.countingPublishes(bus);
    metrics.observe({ runningAllocations: ['a1', 'a2'], pendingReports: 7 });
    await counted.publish('hcn.agent-reports', [
      { key: 'n1', value: '{}' },
      { key: 'n1', value: '{}' },
    ]);
    await counted.publishAll([{ topic: 'hcn.agent-reports', messages: [{ key: 'n1', value: '{}' }] }]);
    await bus.close();
    await expect(counted.publish('hcn.agent-reports', [{ key: 'n1', value: '{}' }])).rejects.toThrow();

    const server = await startMetricsServer({ host: '127.0.0.1', port: 0 }, metrics.registry);
    try {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(text).toMatch(/^hcn_agent_allocations_running 2$/m);
      expect(text).toMatch(/^hcn_agent_outbox_reports 7$/m);
      expect(text).toMatch(/^hcn_agent_reports_sent_total 3$/m);
      expect(text).toMatch(/^hcn_agent_reports_failed_total 1$/m);
      expect(text).toMatch(
        /^hcn_build_info\{app="agent",version="[^"]+",commit="[^"]*",node="v[\d.]+"\} 1$/m,
      );
    } finally {
      await server.close();
    }
  });
});
