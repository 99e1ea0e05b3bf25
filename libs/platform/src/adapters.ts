import { EventRegistry, hcnEventRegistry } from '@hcn/contracts';
import { EsdbEventStore, EventStore, PostgresEventStore } from '@hcn/eventstore';
import { KafkaMessageBus, MemoryMessageBus, MessageBus } from '@hcn/messaging';

/** Where the event store lives: EventStoreDB when its URL is set, else the PostgreSQL adapter. */
export interface EventStoreSettings {
  readonly eventStoreUrl?: string;
  readonly databaseUrl: string;
}

/** Opens the configured event store adapter. */
export async function openEventStore(
  settings: EventStoreSettings,
  registry: EventRegistry = hcnEventRegistry,
): Promise<EventStore> {
  if (settings.eventStoreUrl) return new EsdbEventStore(settings.eventStoreUrl, registry);
  return PostgresEventStore.connect({ connectionString: settings.databaseUrl, registry });
}

/** Opens the configured message bus: Kafka when brokers are set, else the in-process bus (embedded mode). */
export function openMessageBus(kafkaBrokers: readonly string[] | undefined, clientId: string): MessageBus {
  if (kafkaBrokers && kafkaBrokers.length > 0)
    return new KafkaMessageBus({ brokers: kafkaBrokers, clientId });
  return new MemoryMessageBus();
}
