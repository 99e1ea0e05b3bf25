import type { EventRegistry } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import type { KafkaMessageBusOptions, MessageBus } from '@hcn/messaging';
import { DEFAULT_KAFKA_CLIENT, KafkaSecurity } from './kafka-security';

/**
 * Where the event store lives: EventStoreDB when its URL is set (esdb:// through @eventstore/db-client, kurrentdb://,
 * kurrent:// or kdb:// through its successor @kurrent/kurrentdb-client), else the PostgreSQL adapter.
 */
export interface EventStoreSettings {
  readonly eventStoreUrl?: string;
  readonly databaseUrl: string;
  /** Connections of the PostgreSQL adapter's pool (its default when absent). */
  readonly poolSize?: number;
}

/**
 * Opens the configured event store adapter. Adapters are loaded on demand, so a process that never opens an
 * event store (the agent) does not load the EventStoreDB gRPC client or the PostgreSQL driver.
 */
export async function openEventStore(
  settings: EventStoreSettings,
  registry?: EventRegistry,
): Promise<EventStore> {
  const { EsdbEventStore, PostgresEventStore } =
    require('@hcn/eventstore') as typeof import('@hcn/eventstore');
  const { hcnEventRegistry } = require('@hcn/contracts') as typeof import('@hcn/contracts');
  const events = registry ?? hcnEventRegistry;
  if (settings.eventStoreUrl) return new EsdbEventStore(settings.eventStoreUrl, events);
  return PostgresEventStore.connect({
    connectionString: settings.databaseUrl,
    registry: events,
    ...(settings.poolSize ? { poolSize: settings.poolSize } : {}),
  });
}

/**
 * Settings of the Kafka bus besides its brokers: TLS/SASL and the client library (loadKafkaSecurity), the consumer
 * session timeout and fetch/heartbeat pacing.
 */
export type KafkaBusSettings = KafkaSecurity &
  Pick<KafkaMessageBusOptions, 'sessionTimeoutMs' | 'fetchMaxWaitMs' | 'groupHeartbeatMs'>;

/**
 * Opens the configured message bus: Kafka when brokers are set (with the TLS/SASL settings and the client library
 * of loadKafkaSecurity: kafkajs or @platformatic/kafka), else the in-process bus (embedded mode).
 */
export function openMessageBus(
  kafkaBrokers: readonly string[] | undefined,
  clientId: string,
  settings: KafkaBusSettings = {},
): MessageBus {
  const { KafkaMessageBus, MemoryMessageBus, PlatformaticKafkaMessageBus } =
    require('@hcn/messaging') as typeof import('@hcn/messaging');
  if (!kafkaBrokers || kafkaBrokers.length === 0) return new MemoryMessageBus();
  const { client = DEFAULT_KAFKA_CLIENT, ...options } = settings;
  const busOptions = { brokers: kafkaBrokers, clientId, ...options };
  switch (client) {
    case 'kafkajs':
      return new KafkaMessageBus(busOptions);
    case 'platformatic':
      return new PlatformaticKafkaMessageBus(busOptions);
    default: {
      const unknown: never = client;
      throw new Error(`unknown Kafka client ${String(unknown)}`);
    }
  }
}
