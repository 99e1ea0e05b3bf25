import { LogLevel, brokerListSchema, logLevelSchema, parseConfig } from '@hcn/platform';
import { z } from 'zod';
import { DEFAULT_CLUSTER_CHECKPOINT_EVENTS } from './projections/cluster-checkpoints.projection';
import { scavengeSecondsSchema } from './scavenger';

/** An unset variable, or one set to the empty string (compose's `${VAR:-}`). */
const unsetIfEmpty = (v: unknown): unknown => (v === '' ? undefined : v);

/** HCN_CLUSTER_CHECKPOINT_EVENTS: cluster events between two cluster checkpoints (at least 10). */
export const clusterCheckpointEventsSchema = z.preprocess(
  unsetIfEmpty,
  z.coerce
    .number()
    .int()
    .min(10, 'HCN_CLUSTER_CHECKPOINT_EVENTS must be at least 10 (cluster events between two checkpoints)')
    .default(DEFAULT_CLUSTER_CHECKPOINT_EVENTS),
);

const schema = z.object({
  DATABASE_URL: z.string().url('DATABASE_URL must be a postgres:// URL'),
  EVENTSTORE_URL: z.preprocess(unsetIfEmpty, z.string().optional()),
  KAFKA_BROKERS: z.preprocess(unsetIfEmpty, brokerListSchema.optional()),
  HCN_SCAVENGE_SECONDS: scavengeSecondsSchema,
  HCN_CLUSTER_CHECKPOINT_EVENTS: clusterCheckpointEventsSchema,
  LOG_LEVEL: logLevelSchema,
});

/** Validated projector configuration. */
export interface ProjectorConfig {
  readonly databaseUrl: string;
  /** EventStoreDB's connection string; undefined: the PostgreSQL event store at `databaseUrl`. */
  readonly eventStoreUrl?: string;
  readonly kafkaBrokers?: readonly string[];
  /** How often hidden events are deleted from the PostgreSQL store, in seconds (0: never). */
  readonly scavengeSeconds: number;
  /** Cluster events between two cluster checkpoints (decision replays start from the latest before them). */
  readonly clusterCheckpointEvents: number;
  /** Least severe level logged (LOG_LEVEL). */
  readonly logLevel: LogLevel;
}

/** Reads and validates the projector's configuration from the environment (throws ConfigError listing every problem). */
export function loadProjectorConfig(env: NodeJS.ProcessEnv): ProjectorConfig {
  const c = parseConfig('projector', schema, env);
  return {
    databaseUrl: c.DATABASE_URL,
    eventStoreUrl: c.EVENTSTORE_URL,
    kafkaBrokers: c.KAFKA_BROKERS,
    scavengeSeconds: c.HCN_SCAVENGE_SECONDS,
    clusterCheckpointEvents: c.HCN_CLUSTER_CHECKPOINT_EVENTS,
    logLevel: c.LOG_LEVEL,
  };
}
