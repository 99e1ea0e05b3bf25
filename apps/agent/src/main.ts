import {
  describeKafkaSecurity,
  loadKafkaSecurity,
  loadMetricsAddress,
  onShutdown,
  openMessageBus,
  runMain,
  startMetricsServer,
} from '@hcn/platform';
import { Agent } from './agent';
import { AgentMetrics } from './agent-metrics';
import { AGENT_GROUP_HEARTBEAT_MS, loadAgentConfig } from './config';

/**
 * Agent entry point: configuration from HCN_AGENT_CONFIG (YAML) and the environment; Kafka required, with its
 * TLS/SASL settings from KAFKA_SSL* and KAFKA_SASL* (environment only).
 */
async function main(): Promise<void> {
  const config = loadAgentConfig(process.env);
  const kafkaSecurity = loadKafkaSecurity('agent', process.env);
  const metricsAddress = loadMetricsAddress('agent', process.env); // HCN_METRICS_PORT: off when unset
  if (!config.kafkaBrokers) {
    console.error(
      'Invalid agent configuration:\n  - KAFKA_BROKERS (or kafkaBrokers in the file) is required outside embedded mode',
    );
    process.exit(2);
  }
  const bus = openMessageBus(config.kafkaBrokers, 'hcn-agent', {
    ...kafkaSecurity,
    fetchMaxWaitMs: config.kafkaFetchWaitMs,
    groupHeartbeatMs: AGENT_GROUP_HEARTBEAT_MS,
  });
  console.log(`[agent] Kafka: ${describeKafkaSecurity(kafkaSecurity)}`);
  const metrics = new AgentMetrics();
  const agent = new Agent(config, metrics.countingPublishes(bus), {
    log: (line) => console.log(line),
    onRemoteStop: () => void bus.close().finally(() => process.exit(0)),
  });
  metrics.observe(agent);
  const metricsServer = metricsAddress
    ? await startMetricsServer(metricsAddress, metrics.registry)
    : undefined;
  if (metricsServer) console.log(`[agent] metrics at ${metricsServer.url}/metrics`);
  await agent.start();
  console.log(`[agent] node ${agent.nodeId} running`);
  onShutdown('agent', async () => {
    await agent.stop();
    await metricsServer?.close();
    await bus.close();
  });
}

runMain('agent', main);
