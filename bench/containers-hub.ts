import 'reflect-metadata';
import { RecordedEvent, workloadStream } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import type { MessageBus } from '@hcn/messaging';
import { openEventStore } from '@hcn/platform';
import { openReadModels } from '@hcn/read-models';
import { LABELS } from '../apps/agent/src/containers/container-request';
import { DockerEngine } from '../apps/agent/src/containers/docker-engine';
import { send } from '../apps/agent/src/hub-client';
import { loadHubConfig } from '../apps/hub/src/config';
import { startHub } from '../apps/hub/src/hub';
import { startProjector } from '../apps/projector/src/projector';

/** The join token of the benchmark's hubs. */
export const JOIN_TOKEN = 'bench-join-token-0123456789';
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

/** A hub, its projector and store in this process, as embedded mode (`npm start`) runs them. */
export interface InProcessHub {
  readonly url: string;
  /** A store connection of the benchmark's own (reading the log back). */
  readonly store: EventStore;
  close(): Promise<void>;
}

/** Starts hub and projector on `databaseUrl` and `bus` with embedded mode's settings (2 s heartbeats, 6 s TTL). */
export async function startInProcessHub(databaseUrl: string, bus: MessageBus): Promise<InProcessHub> {
  const config = loadHubConfig({
    DATABASE_URL: databaseUrl,
    HCN_HTTP_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', // a line per request would swamp the output
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
    HCN_ADMIN_TOKEN: ADMIN_TOKEN,
    HCN_HEARTBEAT_INTERVAL_SECONDS: '2',
    HCN_NODE_TTL_SECONDS: '6',
  });
  const hubStore = await openEventStore({ databaseUrl, poolSize: config.storePoolSize });
  const readModels = await openReadModels(databaseUrl);
  const projector = await startProjector(hubStore, readModels, {
    onError: (e) => console.error(`[projector] ${e.message}`),
  });
  const hub = await startHub(config, { store: hubStore, bus, readModels });
  const store = await openEventStore({ databaseUrl, poolSize: 2 });
  return {
    url: hub.url,
    store,
    close: async () => {
      await hub.close();
      await projector.stop();
      await hubStore.close();
      await store.close();
      await readModels.destroy();
    },
  };
}

/** One admin API request over `node:http` with keep-alive (the agent's client); throws unless `expected`. */
export async function api(
  hubUrl: string,
  method: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<unknown> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const { status, text } = await send(new URL(`${hubUrl}${path}`), method, payload, ADMIN_TOKEN);
  if (status !== expected) throw new Error(`${method} ${path}: ${status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Submits a workload; its id. */
export async function submitWorkload(hubUrl: string, spec: unknown): Promise<string> {
  return ((await api(hubUrl, 'POST', '/v1/workloads', spec, 201)) as { workloadId: string }).workloadId;
}

/** Deletes a workload (its allocations are stopped). */
export async function deleteWorkload(hubUrl: string, id: string): Promise<void> {
  await api(hubUrl, 'DELETE', `/v1/workloads/${id}`, undefined, 202);
}

const ENDED_BADLY = new Set(['AllocationFailed', 'AllocationLost']);

/**
 * Polls the workload's stream every `pollMs` until an event of `type` is stored; throws when the allocation failed
 * or was lost first, or after `timeoutMs`.
 */
export async function waitForEvent(
  store: EventStore,
  workloadId: string,
  type: string,
  timeoutMs = 30000,
  pollMs = 20,
): Promise<RecordedEvent> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const events = await store.readStream(workloadStream(workloadId));
    const found = events.find((e) => e.type === type);
    if (found) return found;
    const bad = events.find((e) => ENDED_BADLY.has(e.type));
    if (bad) throw new Error(`workload ${workloadId}: ${bad.type} ${JSON.stringify(bad.data)}`);
    if (Date.now() > until) throw new Error(`workload ${workloadId}: no ${type} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** The container workload every run submits: a sleeping busybox, stopped at once when deleted. */
export function containerSpec(name: string, image: string, cpuMillis = 10): Record<string, unknown> {
  return {
    name,
    type: 'container',
    image,
    pullPolicy: 'never',
    command: '/bin/sh',
    args: ['-c', 'sleep 600'],
    resources: { cpuMillis, memoryBytes: 16 * 2 ** 20 },
    stopGraceSeconds: 0,
  };
}

/** Removes the containers of these workloads (the agent keeps finished ones per workload: one each here). */
export async function removeContainersOf(socketPath: string, workloadIds: readonly string[]): Promise<void> {
  const engine = new DockerEngine(socketPath);
  for (const id of workloadIds)
    for (const c of await engine.list([`${LABELS.workload}=${id}`])) await engine.remove(c.id);
}
