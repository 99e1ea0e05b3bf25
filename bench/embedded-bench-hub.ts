import { PostgresEventStore, SubscriptionHealth } from '@hcn/eventstore';
import { MemoryMessageBus } from '@hcn/messaging';
import { openReadModels } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { loadHubConfig } from '../apps/hub/src/config';
import { RunningHub, startHub } from '../apps/hub/src/hub';
import { startProjector } from '../apps/projector/src/projector';
import { BenchDatabase, benchDatabase, progress } from './support';

/** The join token simulated fleets register with. */
export const BENCH_JOIN_TOKEN = 'bench-join-token-0123456789';
/** The admin token of a bench hub. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';
/** Headers of an admin JSON request. */
export const BENCH_ADMIN_HEADERS = {
  authorization: `Bearer ${BENCH_ADMIN_TOKEN}`,
  'content-type': 'application/json',
};

/** A hub, its projector and the in-process bus in one process on a fresh database, as `npm start` runs them. */
export interface EmbeddedBenchHub {
  readonly database: BenchDatabase;
  readonly store: PostgresEventStore;
  readonly readModels: DataSource;
  readonly bus: MemoryMessageBus;
  readonly hub: RunningHub;
  /** Stops everything, the database last. */
  close(): Promise<void>;
}

/** Starts an embedded hub for a bench on database `name`; `env` adds to or overrides the hub's settings. */
export async function startEmbeddedBenchHub(
  name: string,
  env: Record<string, string> = {},
): Promise<EmbeddedBenchHub> {
  const database = await benchDatabase(name);
  const store = await PostgresEventStore.connect({ connectionString: database.url });
  const readModels = await openReadModels(database.url);
  const subscriptions = new SubscriptionHealth();
  const projector = await startProjector(store, readModels, { health: subscriptions });
  const config = loadHubConfig({
    DATABASE_URL: database.url,
    HCN_HTTP_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', // a line per request would swamp the output
    HCN_JOIN_TOKEN: BENCH_JOIN_TOKEN,
    HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
    HCN_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    HCN_NODE_TTL_SECONDS: '3600',
    ...env,
  });
  const bus = new MemoryMessageBus();
  const hub = await startHub(config, { store, bus, readModels, subscriptions });
  return {
    database,
    store,
    readModels,
    bus,
    hub,
    async close() {
      await hub.close();
      await projector.stop();
      await bus.close();
      await store.close();
      await readModels.destroy();
      await database.stop();
    },
  };
}

/** POSTs `body` as the admin; anything but 201 throws with the answer. */
export async function postAsAdmin(hubUrl: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${hubUrl}${path}`, {
    method: 'POST',
    headers: BENCH_ADMIN_HEADERS,
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * Submits `count` single-instance workloads (`<prefix>-<n>`, 100 millicores, 64 MiB, plus `extra`) in batches of
 * 100 through `POST /v1/workloads/batch`, reporting progress; their ids in order.
 */
export async function submitInBatches(
  hubUrl: string,
  count: number,
  prefix: string,
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 100) {
    const workloads = Array.from({ length: Math.min(100, count - i) }, (_, k) => ({
      name: `${prefix}-${i + k}`,
      command: 'true',
      resources: { cpuMillis: 100, memoryBytes: 64 * 2 ** 20 },
      ...extra,
    }));
    const answer = (await postAsAdmin(hubUrl, '/v1/workloads/batch', { workloads })) as {
      workloads: Array<{ workloadId: string }>;
    };
    ids.push(...answer.workloads.map((w) => w.workloadId));
    progress('submitting', ids.length, count);
  }
  return ids;
}
