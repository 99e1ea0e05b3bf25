import {
  ConfigError,
  Logger,
  describeKafkaSecurity,
  lineLogger,
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
async function main(log: Logger): Promise<void> {
  const config = loadAgentConfig(process.env);
  const kafkaSecurity = loadKafkaSecurity('agent', process.env);
  const metricsAddress = loadMetricsAddress('agent', process.env); // HCN_METRICS_PORT: off when unset
  if (!config.kafkaBrokers)
    throw new ConfigError('agent', [
      'KAFKA_BROKERS (or kafkaBrokers in the file) is required outside embedded mode',
    ]);
  const bus = openMessageBus(config.kafkaBrokers, 'hcn-agent', {
    ...kafkaSecurity,
    fetchMaxWaitMs: config.kafkaFetchWaitMs,
    groupHeartbeatMs: AGENT_GROUP_HEARTBEAT_MS,
  });
  log.info(`Kafka: ${describeKafkaSecurity(kafkaSecurity)}`);
  const metrics = new AgentMetrics();
  const agent = new Agent(config, metrics.countingPublishes(bus), {
    log: lineLogger(log),
    onRemoteStop: () => void bus.close().finally(() => process.exit(0)),
  });
  metrics.observe(agent);
  const metricsServer = metricsAddress
    ? await startMetricsServer(metricsAddress, metrics.registry)
    : undefined;
  if (metricsServer) log.info(`metrics at ${metricsServer.url}/metrics`);
  await agent.start();
  log.info(`node ${agent.nodeId} running`);
  onShutdown(log, async () => {
    await agent.stop();
    await metricsServer?.close();
    await bus.close();
  });
}

runMain('agent', main);
