import 'reflect-metadata';
import { SubscriptionHealth } from '@hcn/eventstore';
import { MemoryMessageBus } from '@hcn/messaging';
import {
  Logger,
  lineLogger,
  logLevelSchema,
  onShutdown,
  openEventStore,
  parseConfig,
  runMain,
  startEmbeddedPostgres,
  startEngineIfMissing,
} from '@hcn/platform';
import { openReadModels } from '@hcn/read-models';
import { chmodSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { Agent } from '../../agent/src/agent';
import { loadAgentConfig } from '../../agent/src/config';
import { clusterCheckpointEventsSchema } from '../../projector/src/config';
import { startProjector } from '../../projector/src/projector';
import { scavengeSecondsSchema, startScavenger } from '../../projector/src/scavenger';
import { loadHubConfig } from '../../hub/src/config';
import { startHub } from '../../hub/src/hub';
import { embeddedSecrets } from './embedded-secrets';
import { offerBuiltinSklearn } from './builtin-sklearn';

/**
 * Embedded mode (`npm start`): hub, projector and a local agent in one process, on embedded PostgreSQL
 * (data under HCN_DATA_DIR, default ./data, kept between runs), the PostgreSQL event store and the
 * in-process bus. Prints the dashboard URL.
 */
async function main(log: Logger): Promise<void> {
  const projecting = parseConfig(
    'hcn',
    z.object({
      HCN_SCAVENGE_SECONDS: scavengeSecondsSchema,
      HCN_CLUSTER_CHECKPOINT_EVENTS: clusterCheckpointEventsSchema,
      LOG_LEVEL: logLevelSchema,
    }),
    process.env,
  );
  const dataDir = resolve(process.env.HCN_DATA_DIR ?? 'data');
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, 0o711); // PostgreSQL's user reaches ./data/pg; nobody else lists or reads the secrets
  const secrets = embeddedSecrets(dataDir);
  chmodSync(join(dataDir, 'secrets.json'), 0o600);
  log.info(`starting embedded PostgreSQL in ${join(dataDir, 'pg')} ...`);
  const postgres = await startEmbeddedPostgres({
    dataDir: join(dataDir, 'pg'),
    password: secrets.postgresPassword,
    previousPassword: 'hcn', // data directories made before the password was random
  });
  const databaseUrl = postgres.url;
  const config = loadHubConfig({
    HCN_HEARTBEAT_INTERVAL_SECONDS: '2',
    HCN_NODE_TTL_SECONDS: '6',
    ...process.env,
    DATABASE_URL: databaseUrl,
    HCN_JOIN_TOKEN: process.env.HCN_JOIN_TOKEN ?? secrets.joinToken,
    HCN_AGENT_SECRET: process.env.HCN_AGENT_SECRET ?? secrets.agentSecret,
    HCN_ADMIN_TOKEN: process.env.HCN_ADMIN_TOKEN ?? secrets.adminToken,
  });
  const adminToken = config.apiTokens[0].token;
  const store = await openEventStore({ databaseUrl, poolSize: config.storePoolSize });
  const readModels = await openReadModels(databaseUrl);
  const bus = new MemoryMessageBus();
  const subscriptions = new SubscriptionHealth(); // the projector's and the hub's: readiness sees both
  const projector = await startProjector(
    store,
    readModels,
    { onError: (e) => log.error(`projector: ${e.message}`), health: subscriptions },
    { clusterCheckpointEvents: projecting.HCN_CLUSTER_CHECKPOINT_EVENTS },
  );
  const hub = await startHub(config, { store, bus, readModels, subscriptions, logger: log });
  const scavenger = startScavenger(store, projecting.HCN_SCAVENGE_SECONDS * 1000, lineLogger(log));
  const engine = await startEngineIfMissing(
    process.env.DOCKER_HOST,
    join(dataDir, 'podman'),
    lineLogger(log),
  );
  const agentConfig = loadAgentConfig({
    ...process.env,
    ...(engine ? { DOCKER_HOST: `unix://${engine.socketPath}` } : {}),
    HCN_HUB_URL: hub.url,
    HCN_JOIN_TOKEN: config.joinToken,
    HCN_DOMAIN: process.env.HCN_DOMAIN ?? 'local',
    HCN_HEAD: 'true',
    HCN_DATA_DIR: join(dataDir, 'agent'),
    KAFKA_BROKERS: '',
  });
  const agent = new Agent(agentConfig, bus, { log: lineLogger(log) });
  await agent.start();
  void offerBuiltinSklearn(agent, process.env, lineLogger(log));
  log.info(
    [
      'HCN is running (embedded mode).',
      `  Dashboard: ${hub.url}/#token=${adminToken}`,
      `  Admin API token (Authorization: Bearer ...): ${adminToken}`,
      `  API:       ${hub.url}/v1/nodes   docs: ${hub.opsUrl}/docs   metrics: ${hub.opsUrl}/metrics`,
      `  Join token for more agents: ${config.joinToken}`,
    ].join('\n'),
  );
  onShutdown(log, async () => {
    await agent.stop();
    await hub.close();
    await scavenger.stop();
    await projector.stop();
    await bus.close();
    await store.close();
    await readModels.destroy();
    await postgres.stop();
    await engine?.stop();
  });
}

runMain('embedded', main);
