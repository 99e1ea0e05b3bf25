import { withMac } from '@hcn/contracts';
import { PostgresEventStore, SubscriptionHealth } from '@hcn/eventstore';
import type { MessageBus } from '@hcn/messaging';
import { loadKafkaSecurity, openMessageBus } from '@hcn/platform';
import { openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import { RunningProjector, startProjector } from '../../../projector/src/projector';
import { HubConfig, loadHubConfig } from '../config';
import { RunningHub, startHub } from '../hub';

/** A hub with its projector on a fresh test database (real PostgreSQL) and a bus of the caller's choice. */
export interface HubHarness {
  readonly hub: RunningHub;
  readonly config: HubConfig;
  readonly store: PostgresEventStore;
  readonly bus: MessageBus;
  readonly db: DataSource;
  readonly projector: RunningProjector;
  readonly database: TestDatabase;
  /** JSON request to the hub; returns status, body and headers. */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** The admin API token of every harness hub (requests carry it unless they set their own Authorization). */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/** The join token every harness hub accepts. */
export const TEST_JOIN_TOKEN = 'test-join-token-0123456789';

/**
 * Starts a hub for a spec: short TTL and sweeps. Its bus: the one given, else the one its configuration names (as
 * the hub's main opens it: Kafka when `KAFKA_BROKERS` is among the overrides), else an in-process one.
 */
export async function startHubHarness(
  overrides: Record<string, string> = {},
  sharedBus?: MessageBus,
): Promise<HubHarness> {
  const database = await createTestDatabase('hub');
  const config = loadHubConfig({
    DATABASE_URL: database.url,
    HCN_HTTP_PORT: '0',
    LOG_LEVEL: 'warn', // as quiet as the specs' hubs were before structured logs (overrides may change it)
    HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
    HCN_AGENT_SECRET: 'test-agent-secret-0123456789-0123456789',
    HCN_NODE_TTL_SECONDS: '2',
    HCN_HEARTBEAT_INTERVAL_SECONDS: '0.5',
    HCN_LIVENESS_SWEEP_MS: '200',
    // a fixed interval, however many nodes a spec registers (heartbeat-cadence.e2e.spec.ts scales it)
    HCN_HEARTBEATS_MAX_PER_SECOND: '0',
    HCN_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    HCN_CLAIM_DELAY_MS: '300',
    HCN_SCHEDULER_TICK_MS: '50',
    ...overrides,
  });
  const bus =
    sharedBus ??
    openMessageBus(config.kafkaBrokers, 'hcn-hub', {
      client: loadKafkaSecurity('hub', process.env).client, // HCN_KAFKA_CLIENT runs the e2e suite on either client
      sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    });
  const store = await PostgresEventStore.connect({
    connectionString: database.url,
    polling: { pollIntervalMs: 200 },
  });
  const db = await openReadModels(database.url, 4);
  const subscriptions = new SubscriptionHealth(); // as embedded mode: readiness sees the projector too
  const projector = await startProjector(store, db, { health: subscriptions, retryBackoffMs: 100 });
  // every answer of a harness hub is checked against its documented schema (a drift answers 500 API.ANSWER_SCHEMA)
  const hub = await startHub(config, { store, bus, readModels: db, subscriptions, checkAnswers: true });
  const request: HubHarness['request'] = async (method, path, body, headers = {}) => {
    const response = await fetch(`${hub.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (metrics, HTML)
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    hub,
    config,
    store,
    bus,
    db,
    projector,
    database,
    request,
    close: async () => {
      await hub.close();
      await projector.stop();
      if (!sharedBus) await bus.close(); // a bus passed in belongs to the caller
      await store.close();
      await db.destroy();
      await database.drop();
    },
  };
}

/** A valid registration body. */
export function registrationBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    joinToken: TEST_JOIN_TOKEN,
    domainId: 'site-a',
    hostname: 'node-1',
    arch: 'x64',
    os: 'linux',
    cpuCores: 8,
    memoryBytes: 32 * 2 ** 30,
    diskBytes: 500 * 2 ** 30,
    labels: { rack: 'r1' },
    agentVersion: 'spec',
    ...overrides,
  };
}

/** Registers a node through the API; returns its id and credential. */
export async function registerNode(
  h: HubHarness,
  overrides: Record<string, unknown> = {},
  credential?: string,
): Promise<{ nodeId: string; credential: string; commandKey: string }> {
  // registering a known node again takes its credential (the join token only creates nodes)
  const auth = credential ? { authorization: `Bearer ${credential}` } : undefined;
  const response = await h.request('POST', '/v1/agents/register', registrationBody(overrides), auth);
  if (response.status !== 200) throw new Error(`registration failed: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A small valid process workload spec. */
export function processSpec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'job',
    command: 'sh',
    args: ['-c', 'echo hello'],
    resources: { cpuMillis: 500, memoryBytes: 2 ** 28 },
    ...overrides,
  };
}

/** A report as an agent publishes it: with the MAC of the node's key (its registration answer's commandKey). */
export function signedReport(node: { commandKey: string }, report: Record<string, unknown>): string {
  return JSON.stringify(withMac(node.commandKey, report));
}

/** Workloads submitted so far, counted in the log (a read model may still be catching up). */
export async function submittedWorkloads(h: Pick<HubHarness, 'store'>): Promise<number> {
  const events = await h.store.readAll({ filter: { kind: 'streamPrefix', prefixes: ['workload-'] } });
  return events.filter((e) => e.type === 'WorkloadSubmitted').length;
}
