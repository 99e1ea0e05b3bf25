import { QuotaLimits, quotaLimitsSchema } from '@hcn/contracts';
import { esdbClientFor } from '@hcn/eventstore';
import { LogLevel, brokerListSchema, envNumber, logLevelSchema, parseConfig } from '@hcn/platform';
import { z } from 'zod';
import { ApiToken, apiTokenSchema } from './auth/api-tokens';
import { FederationConfig, loadFederationConfig } from './federation/federation.config';
import { ListenerTls, loadListenerTls } from './tls/listener-tls';

const tokensJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'HCN_API_TOKENS must be a JSON array of {name, token, role, namespaces}',
      });
      return z.NEVER;
    }
  })
  .pipe(z.array(apiTokenSchema));

/** An unset variable, or one set to the empty string. */
const unsetIfEmpty = (v: unknown): unknown => (v === '' ? undefined : v);

/** HCN_DEFAULT_QUOTA: the `limits` object of PUT /v1/quotas/:namespace (or that whole body), as JSON. */
const defaultQuotaJson = z
  .string()
  .transform((text, ctx) => {
    try {
      const parsed = JSON.parse(text) as unknown;
      const body = parsed as { limits?: unknown } | null;
      const wrapped = typeof body === 'object' && body !== null && Object.keys(body).join() === 'limits';
      return wrapped ? body.limits : parsed;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message:
          'HCN_DEFAULT_QUOTA must be JSON limits like {"cpuMillis":4000,"memoryBytes":8589934592,"workloads":20}',
      });
      return z.NEVER;
    }
  })
  .pipe(quotaLimitsSchema);

const opsPort = z.preprocess(
  unsetIfEmpty,
  z.coerce
    .number()
    .int('HCN_OPS_HTTP_PORT: a port number')
    .min(0, 'HCN_OPS_HTTP_PORT: 0 to 65535')
    .max(65535, 'HCN_OPS_HTTP_PORT: 0 to 65535')
    .optional(),
);

const SESSION_TIMEOUT_RANGE =
  "HCN_KAFKA_SESSION_TIMEOUT_MS: whole milliseconds, 6000 to 1800000 (the broker's default session bounds)";

const schema = z
  .object({
    HCN_HTTP_HOST: z.string().default('127.0.0.1'),
    HCN_HTTP_PORT: envNumber(8080).pipe(z.number().int().min(0).max(65535)),
    DATABASE_URL: z.string().url('DATABASE_URL must be a postgres:// URL'),
    EVENTSTORE_URL: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .refine(
          (url) => esdbClientFor(url) !== undefined,
          'EVENTSTORE_URL must be an esdb:// (@eventstore/db-client) or kurrentdb:// (@kurrent/kurrentdb-client) connection string',
        )
        .optional(),
    ),
    KAFKA_BROKERS: brokerListSchema.optional(),
    HCN_KAFKA_SESSION_TIMEOUT_MS: envNumber(10_000).pipe(
      z
        .number()
        .int(SESSION_TIMEOUT_RANGE)
        .min(6000, SESSION_TIMEOUT_RANGE)
        .max(1_800_000, SESSION_TIMEOUT_RANGE),
    ),
    HCN_JOIN_TOKEN: z.preprocess(
      unsetIfEmpty,
      z.string().min(16, 'HCN_JOIN_TOKEN must be at least 16 characters').optional(),
    ),
    HCN_AGENT_SECRET: z.string().min(32, 'HCN_AGENT_SECRET must be at least 32 characters'),
    HCN_NODE_TTL_SECONDS: envNumber(15).pipe(z.number().positive()),
    HCN_HEARTBEAT_INTERVAL_SECONDS: envNumber(5).pipe(z.number().positive()),
    HCN_HEARTBEATS_MAX_PER_SECOND: envNumber(50).pipe(
      z
        .number()
        .min(
          0,
          'HCN_HEARTBEATS_MAX_PER_SECOND: heartbeats per second of the whole fleet, or 0 for a fixed interval',
        ),
    ),
    HCN_REPORTS_BATCH_WINDOW_MS: envNumber(500).pipe(
      z
        .number()
        .int('HCN_REPORTS_BATCH_WINDOW_MS: whole milliseconds, 10 to 5000')
        .min(10, 'HCN_REPORTS_BATCH_WINDOW_MS: whole milliseconds, 10 to 5000')
        .max(5000, 'HCN_REPORTS_BATCH_WINDOW_MS: whole milliseconds, 10 to 5000'),
    ),
    HCN_HEARTBEAT_RETENTION_SECONDS: envNumber(86400).pipe(z.number().int().positive()),
    HCN_LIVENESS_SWEEP_MS: envNumber(1000).pipe(z.number().int().positive()),
    HCN_NODE_PURGE_AFTER_SECONDS: envNumber(0).pipe(
      z
        .number()
        .min(
          0,
          'HCN_NODE_PURGE_AFTER_SECONDS: seconds a node may stay offline before it is deregistered, 0 = never',
        ),
    ),
    HCN_ADMIN_TOKEN: z.string().min(16, 'HCN_ADMIN_TOKEN must be at least 16 characters').optional(),
    HCN_API_TOKENS: tokensJson.default([]),
    HCN_CLAIM_DELAY_MS: envNumber(2000).pipe(z.number().int().min(0)),
    HCN_SCHEDULER_TICK_MS: envNumber(200).pipe(z.number().int().positive()),
    HCN_ORPHAN_SWEEP_SECONDS: envNumber(60).pipe(z.number().positive()),
    HCN_START_DEADLINE_SECONDS: envNumber(60).pipe(z.number().positive()),
    HCN_START_RESENDS: envNumber(2).pipe(z.number().int().min(0).max(100)),
    HCN_STORE_POOL_SIZE: envNumber(20).pipe(z.number().int().min(2).max(200)),
    HCN_CONTAINER_HOST_PATHS: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.string().startsWith('/', 'HCN_CONTAINER_HOST_PATHS: absolute directories, comma-separated'),
        ),
      ),
    HCN_MAX_INSTANCES_PER_REQUEST: envNumber(10_000).pipe(
      z
        .number()
        .int('HCN_MAX_INSTANCES_PER_REQUEST: a whole number of instances')
        .min(1, 'HCN_MAX_INSTANCES_PER_REQUEST must be at least 1'),
    ),
    HCN_DEFAULT_QUOTA: z.preprocess(unsetIfEmpty, defaultQuotaJson.optional()),
    HCN_OPS_HTTP_HOST: z.preprocess(unsetIfEmpty, z.string().optional()),
    HCN_OPS_HTTP_PORT: opsPort,
    LOG_LEVEL: logLevelSchema,
  })
  .refine((c) => c.HCN_OPS_HTTP_HOST === undefined || c.HCN_OPS_HTTP_PORT !== undefined, {
    message: 'HCN_OPS_HTTP_HOST needs HCN_OPS_HTTP_PORT (the ops listener is on only when its port is set)',
    path: ['HCN_OPS_HTTP_HOST'],
  })
  .refine(
    (c) =>
      c.HCN_OPS_HTTP_PORT === undefined ||
      c.HCN_OPS_HTTP_PORT === 0 ||
      c.HCN_OPS_HTTP_PORT !== c.HCN_HTTP_PORT ||
      (c.HCN_OPS_HTTP_HOST ?? '127.0.0.1') !== c.HCN_HTTP_HOST,
    {
      message: 'HCN_OPS_HTTP_HOST/PORT must be another address than HCN_HTTP_HOST/PORT',
      path: ['HCN_OPS_HTTP_PORT'],
    },
  )
  .refine((c) => c.HCN_ADMIN_TOKEN !== undefined || c.HCN_API_TOKENS.some((t) => t.role === 'admin'), {
    message: 'configure an admin API token: HCN_ADMIN_TOKEN, or an admin entry in HCN_API_TOKENS',
    path: ['HCN_ADMIN_TOKEN'],
  })
  .refine((c) => c.HCN_NODE_TTL_SECONDS > c.HCN_HEARTBEAT_INTERVAL_SECONDS, {
    message: 'HCN_NODE_TTL_SECONDS must be longer than HCN_HEARTBEAT_INTERVAL_SECONDS',
    path: ['HCN_NODE_TTL_SECONDS'],
  });

/** Validated hub configuration. */
export interface HubConfig {
  readonly httpHost: string;
  readonly httpPort: number;
  /** HTTPS on the main listener, optionally with client certificates (HCN_HTTP_TLS_*); undefined: plain HTTP. */
  readonly tls?: ListenerTls;
  readonly databaseUrl: string;
  readonly eventStoreUrl?: string;
  readonly kafkaBrokers?: readonly string[];
  /** Kafka consumer session timeout: a member silent this long loses its partitions (a store outage does not). */
  readonly kafkaSessionTimeoutMs: number;
  /** The shared join token; unset: new nodes join only with per-node bootstrap tokens. */
  readonly joinToken?: string;
  readonly agentSecret: string;
  readonly nodeTtlSeconds: number;
  readonly heartbeatIntervalSeconds: number;
  /** Most heartbeats per second of the whole fleet: a larger fleet is told a longer interval and TTL (0: never). */
  readonly heartbeatsMaxPerSecond: number;
  /** How long the broker may gather agent reports for one fetch of the hub's consumer (idle: one fetch per window). */
  readonly reportsBatchWindowMs: number;
  readonly heartbeatRetentionSeconds: number;
  readonly livenessSweepMs: number;
  /** Seconds a node may stay offline before liveness deregisters it (0: never). */
  readonly nodePurgeAfterSeconds: number;
  /** API tokens of the user API (the admin token first when given). */
  readonly apiTokens: readonly ApiToken[];
  /** How long a hub waits before scheduling a submission another hub accepted. */
  readonly claimDelayMs: number;
  readonly schedulerTickMs: number;
  /** How long a reservation no workload records is left alone before the saga gives it back (twice at most). */
  readonly orphanSweepMs: number;
  /** How long a placement waits for its start report before its run command is sent again, then lost. */
  readonly startDeadlineMs: number;
  /** How many times a run command is sent again before the allocation is marked lost. */
  readonly startResends: number;
  /** Connections of the PostgreSQL event store's pool (appends, stream reads and the log followers share it). */
  readonly storePoolSize: number;
  /** Host directories container volumes may bind (a host path elsewhere is refused with 400). */
  readonly containerHostPaths: readonly string[];
  /** Most workload instances (replicas, summed over a batch) one request may ask for. */
  readonly maxInstancesPerRequest: number;
  /** Limits admission applies to a namespace without a quota of its own; undefined = unlimited. */
  readonly defaultQuota?: QuotaLimits;
  /** Sites, parent link, peers and gossip (HCN_SITE_*, HCN_FEDERATION_*). */
  readonly federation: FederationConfig;
  /** Second listener serving only /metrics and /docs (they then answer 404 on the main one); undefined = none. */
  readonly opsHttp?: { readonly host: string; readonly port: number };
  /** Least severe level logged (LOG_LEVEL). */
  readonly logLevel: LogLevel;
}

/** Reads and validates the hub's configuration from the environment (throws ConfigError listing every problem). */
export function loadHubConfig(env: NodeJS.ProcessEnv): HubConfig {
  const c = parseConfig('hub', schema, env);
  return {
    httpHost: c.HCN_HTTP_HOST,
    httpPort: c.HCN_HTTP_PORT,
    tls: loadListenerTls(env),
    databaseUrl: c.DATABASE_URL,
    eventStoreUrl: c.EVENTSTORE_URL,
    kafkaBrokers: c.KAFKA_BROKERS,
    kafkaSessionTimeoutMs: c.HCN_KAFKA_SESSION_TIMEOUT_MS,
    joinToken: c.HCN_JOIN_TOKEN,
    agentSecret: c.HCN_AGENT_SECRET,
    nodeTtlSeconds: c.HCN_NODE_TTL_SECONDS,
    heartbeatIntervalSeconds: c.HCN_HEARTBEAT_INTERVAL_SECONDS,
    heartbeatsMaxPerSecond: c.HCN_HEARTBEATS_MAX_PER_SECOND,
    reportsBatchWindowMs: c.HCN_REPORTS_BATCH_WINDOW_MS,
    heartbeatRetentionSeconds: c.HCN_HEARTBEAT_RETENTION_SECONDS,
    livenessSweepMs: c.HCN_LIVENESS_SWEEP_MS,
    nodePurgeAfterSeconds: c.HCN_NODE_PURGE_AFTER_SECONDS,
    apiTokens: [
      ...(c.HCN_ADMIN_TOKEN
        ? [{ name: 'admin', token: c.HCN_ADMIN_TOKEN, role: 'admin' as const, namespaces: ['*'] }]
        : []),
      ...c.HCN_API_TOKENS,
    ],
    claimDelayMs: c.HCN_CLAIM_DELAY_MS,
    schedulerTickMs: c.HCN_SCHEDULER_TICK_MS,
    orphanSweepMs: c.HCN_ORPHAN_SWEEP_SECONDS * 1000,
    startDeadlineMs: c.HCN_START_DEADLINE_SECONDS * 1000,
    startResends: c.HCN_START_RESENDS,
    storePoolSize: c.HCN_STORE_POOL_SIZE,
    containerHostPaths: c.HCN_CONTAINER_HOST_PATHS,
    maxInstancesPerRequest: c.HCN_MAX_INSTANCES_PER_REQUEST,
    defaultQuota: c.HCN_DEFAULT_QUOTA,
    federation: loadFederationConfig(env),
    opsHttp:
      c.HCN_OPS_HTTP_PORT === undefined
        ? undefined
        : { host: c.HCN_OPS_HTTP_HOST ?? '127.0.0.1', port: c.HCN_OPS_HTTP_PORT },
    logLevel: c.LOG_LEVEL,
  };
}
