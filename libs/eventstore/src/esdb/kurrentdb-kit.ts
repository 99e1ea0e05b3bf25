import {
  KurrentDBClient,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
} from '@kurrent/kurrentdb-client';
import type { EsdbClient, EsdbKit } from './esdb-kit';

/**
 * The EventStoreDB adapter on `@kurrent/kurrentdb-client` 1.x, the maintained successor of `@eventstore/db-client`
 * (kurrentdb://, kurrent:// or kdb:// connection strings). Its API is the older client's but for the append's
 * expected state (`streamState`) and the conflict's actual one (`actualState`). NOT run against a live server here.
 */
export const kurrentDbKit: EsdbKit = {
  library: '@kurrent/kurrentdb-client',
  connect: (connectionString): EsdbClient => {
    const client = KurrentDBClient.connectionString(connectionString);
    return {
      appendToStream: (streamId, events, { expectedRevision }) =>
        client.appendToStream(streamId, events, { streamState: expectedRevision }),
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
    error instanceof WrongExpectedVersionError ? { actualVersion: error.actualState } : undefined,
};
