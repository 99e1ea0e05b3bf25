import { SubscriptionHealth } from '@hcn/eventstore';
import {
  Logger,
  lineLogger,
  loadMetricsAddress,
  onShutdown,
  openEventStore,
  runMain,
  startMetricsServer,
} from '@hcn/platform';
import { openReadModels } from '@hcn/read-models';
import { loadProjectorConfig } from './config';
import { ProjectorMetrics } from './projector-metrics';
import { startProjector } from './projector';
import { startScavenger } from './scavenger';
import { createProjections } from './projections';
import { rebuildProjections, renderProgress } from './rebuild';

/**
 * Projector entry point.
 *   projector            run every projection (checkpointed catch-up subscriptions)
 *   projector rebuild    drop the read models and replay the log from zero, with a progress bar
 */
async function main(log: Logger): Promise<void> {
  const config = loadProjectorConfig(process.env);
  const metricsAddress = loadMetricsAddress('projector', process.env); // HCN_METRICS_PORT: off when unset
  const store = await openEventStore({
    databaseUrl: config.databaseUrl,
    eventStoreUrl: config.eventStoreUrl,
  });
  const dataSource = await openReadModels(config.databaseUrl);
  if (process.argv[2] === 'rebuild') {
    const projections = createProjections(config);
    const names = projections.map((p) => p.name).join(', ');
    const result = await rebuildProjections(store, dataSource, projections, {
      onProgress: (p) => process.stdout.write(`\r${renderProgress('all', p)}`),
    });
    process.stdout.write(`\n[rebuild] done: ${result.read} events replayed into ${names}\n`);
    await store.close();
    await dataSource.destroy();
    return;
  }
  const health = new SubscriptionHealth();
  const metrics = new ProjectorMetrics(health);
  const metricsServer = metricsAddress
    ? await startMetricsServer(metricsAddress, metrics.registry)
    : undefined;
  if (metricsServer) log.info(`metrics at ${metricsServer.url}/metrics`);
  const projector = await startProjector(
    store,
    dataSource,
    { onError: (e) => log.error(e.message), health, onApplied: metrics.onApplied },
    config,
  );
  const scavenger = startScavenger(store, config.scavengeSeconds * 1000, lineLogger(log));
  log.info('running');
  onShutdown(log, async () => {
    await scavenger.stop();
    await projector.stop();
    await metricsServer?.close();
    await store.close();
    await dataSource.destroy();
  });
}

runMain('projector', main);
