import 'reflect-metadata';
import {
  Logger,
  describeKafkaSecurity,
  loadKafkaSecurity,
  onShutdown,
  openEventStore,
  openMessageBus,
  runMain,
} from '@hcn/platform';
import { openReadModels } from '@hcn/read-models';
import { loadHubConfig } from './config';
import { startHub } from './hub';

/**
 * Distributed-mode entry point: adapters from the environment (EVENTSTORE_URL, KAFKA_BROKERS with KAFKA_SSL* and
 * KAFKA_SASL*, DATABASE_URL).
 */
async function main(log: Logger): Promise<void> {
  const config = loadHubConfig(process.env);
  const kafkaSecurity = loadKafkaSecurity('hub', process.env);
  const store = await openEventStore({
    databaseUrl: config.databaseUrl,
    eventStoreUrl: config.eventStoreUrl,
    poolSize: config.storePoolSize,
  });
  const bus = openMessageBus(config.kafkaBrokers, 'hcn-hub', {
    ...kafkaSecurity,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
  });
  if (config.kafkaBrokers) log.info(`Kafka: ${describeKafkaSecurity(kafkaSecurity)}`);
  const readModels = await openReadModels(config.databaseUrl);
  const hub = await startHub(config, { store, bus, readModels, logger: log });
  log.info(`listening on ${hub.url} (docs: ${hub.opsUrl}/docs, metrics: ${hub.opsUrl}/metrics)`);
  onShutdown(log, async () => {
    await hub.close();
    await bus.close();
    await store.close();
    await readModels.destroy();
  });
}

runMain('hub', main);
