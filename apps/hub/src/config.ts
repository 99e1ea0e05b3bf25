import { brokerListSchema, envNumber, parseConfig } from '@hcn/platform';
import { z } from 'zod';
import { ApiToken, apiTokenSchema } from './auth/api-tokens';

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

const schema = z
  .object({
    HCN_HTTP_HOST: z.string().default('127.0.0.1'),
    HCN_HTTP_PORT: envNumber(8080).pipe(z.number().int().min(0).max(65535)),
    DATABASE_URL: z.string().url('DATABASE_URL must be a postgres:// URL'),
    EVENTSTORE_URL: z
      .string()
      .startsWith('esdb', 'EVENTSTORE_URL must be an esdb:// connection string')
      .optional(),
    KAFKA_BROKERS: brokerListSchema.optional(),
    HCN_JOIN_TOKEN: z.string().min(16, 'HCN_JOIN_TOKEN must be at least 16 characters'),
    HCN_AGENT_SECRET: z.string().min(32, 'HCN_AGENT_SECRET must be at least 32 characters'),
    HCN_NODE_TTL_SECONDS: envNumber(15).pipe(z.number().positive()),
    HCN_HEARTBEAT_INTERVAL_SECONDS: envNumber(5).pipe(z.number().positive()),
    HCN_HEARTBEAT_RETENTION_SECONDS: envNumber(86400).pipe(z.number().int().positive()),
    HCN_LIVENESS_SWEEP_MS: envNumber(1000).pipe(z.number().int().positive()),
    HCN_ADMIN_TOKEN: z.string().min(16, 'HCN_ADMIN_TOKEN must be at least 16 characters').optional(),
    HCN_API_TOKENS: tokensJson.default([]),
    HCN_CLAIM_DELAY_MS: envNumber(2000).pipe(z.number().int().min(0)),
    HCN_SCHEDULER_TICK_MS: envNumber(200).pipe(z.number().int().positive()),
    HCN_ORPHAN_SWEEP_SECONDS: envNumber(60).pipe(z.number().positive()),
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
  })
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
  readonly databaseUrl: string;
  readonly eventStoreUrl?: string;
  readonly kafkaBrokers?: readonly string[];
  readonly joinToken: string;
  readonly agentSecret: string;
  readonly nodeTtlSeconds: number;
  readonly heartbeatIntervalSeconds: number;
  readonly heartbeatRetentionSeconds: number;
  readonly livenessSweepMs: number;
  /** API tokens of the user API (the admin token first when given). */
  readonly apiTokens: readonly ApiToken[];
  /** How long a hub waits before scheduling a submission another hub accepted. */
  readonly claimDelayMs: number;
  readonly schedulerTickMs: number;
  /** How long a reservation no workload records is left alone before the saga gives it back (twice at most). */
  readonly orphanSweepMs: number;
  /** Connections of the PostgreSQL event store's pool (appends, stream reads and the log followers share it). */
  readonly storePoolSize: number;
  /** Host directories container volumes may bind (a host path elsewhere is refused with 400). */
  readonly containerHostPaths: readonly string[];
}

/** Reads and validates the hub's configuration from the environment (throws ConfigError listing every problem). */
export function loadHubConfig(env: NodeJS.ProcessEnv): HubConfig {
  const c = parseConfig('hub', schema, env);
  return {
    httpHost: c.HCN_HTTP_HOST,
    httpPort: c.HCN_HTTP_PORT,
    databaseUrl: c.DATABASE_URL,
    eventStoreUrl: c.EVENTSTORE_URL,
    kafkaBrokers: c.KAFKA_BROKERS,
    joinToken: c.HCN_JOIN_TOKEN,
    agentSecret: c.HCN_AGENT_SECRET,
    nodeTtlSeconds: c.HCN_NODE_TTL_SECONDS,
    heartbeatIntervalSeconds: c.HCN_HEARTBEAT_INTERVAL_SECONDS,
    heartbeatRetentionSeconds: c.HCN_HEARTBEAT_RETENTION_SECONDS,
    livenessSweepMs: c.HCN_LIVENESS_SWEEP_MS,
    apiTokens: [
      ...(c.HCN_ADMIN_TOKEN
        ? [{ name: 'admin', token: c.HCN_ADMIN_TOKEN, role: 'admin' as const, namespaces: ['*'] }]
        : []),
      ...c.HCN_API_TOKENS,
    ],
    claimDelayMs: c.HCN_CLAIM_DELAY_MS,
    schedulerTickMs: c.HCN_SCHEDULER_TICK_MS,
    orphanSweepMs: c.HCN_ORPHAN_SWEEP_SECONDS * 1000,
    storePoolSize: c.HCN_STORE_POOL_SIZE,
    containerHostPaths: c.HCN_CONTAINER_HOST_PATHS,
  };
}
