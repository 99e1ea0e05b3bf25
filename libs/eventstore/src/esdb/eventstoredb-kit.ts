import {
  EventStoreDBClient,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
} from '@eventstore/db-client';
import type { EsdbClient, EsdbKit } from './esdb-kit';

/** The EventStoreDB adapter on `@eventstore/db-client` 6.x (esdb:// connection strings; no release since 2024). */
export const eventStoreDbKit: EsdbKit = {
  library: '@eventstore/db-client',
  connect: (connectionString): EsdbClient => {
    const client = EventStoreDBClient.connectionString(connectionString);
    return {
      appendToStream: (streamId, events, { expectedRevision }) =>
        client.appendToStream(streamId, events, { expectedRevision }),
      readStream: (streamId, options) => client.readStream(streamId, options),
      readAll: (options) => client.readAll(options),
      subscribeToAll: (options) => client.subscribeToAll(options),
      setStreamMetadata: (streamId, metadata) => client.setStreamMetadata(streamId, metadata),
      getStreamMetadata: (streamId) => client.getStreamMetadata(streamId),
      dispose: () => client.dispose(),
    };
  },
  jsonEvent: (event) => jsonEvent(event as Parameters<typeof jsonEvent>[0]) as never,
  excludeSystemEvents: (options) => excludeSystemEvents(options) as never,
  streamNameFilter: (options) => streamNameFilter(options) as never,
  eventTypeFilter: (options) => eventTypeFilter(options) as never,
  isStreamNotFound: (error) => error instanceof StreamNotFoundError,
  wrongExpectedVersion: (error) =>
    error instanceof WrongExpectedVersionError ? { actualVersion: error.actualVersion } : undefined,
};
