import { WrongExpectedVersionError as OldConflict } from '@eventstore/db-client';
import { WrongExpectedVersionError as KurrentConflict } from '@kurrent/kurrentdb-client';
import { testEventRegistry } from '../testing/test-events';
import { EsdbEventStore, esdbKitFor } from './esdb-event-store';
import { esdbClientFor } from './esdb-kit';
import { eventStoreDbKit } from './eventstoredb-kit';
import { kurrentDbKit } from './kurrentdb-kit';

/**
 * Which gRPC client EVENTSTORE_URL selects, and the one place the two clients' APIs differ (the conflict's actual
 * revision: `actualVersion` in @eventstore/db-client, `actualState` in @kurrent/kurrentdb-client). No server here:
 * the contract itself runs only against a live EventStoreDB (esdb-event-store.int.spec.ts).
 */
describe('EventStoreDB client selection', () => {
  it('picks the client library by the connection string scheme', () => {
    expect(esdbClientFor('esdb://127.0.0.1:2113?tls=false')).toBe('eventstoredb');
    expect(esdbClientFor('esdb+discover://cluster.local:2113')).toBe('eventstoredb');
    expect(esdbClientFor('kurrentdb://127.0.0.1:2113?tls=false')).toBe('kurrentdb');
    expect(esdbClientFor('KurrentDB+discover://cluster.local')).toBe('kurrentdb');
    expect(esdbClientFor('kdb://127.0.0.1:2113')).toBe('kurrentdb');
    expect(esdbClientFor('postgres://localhost/db')).toBeUndefined();
    expect(esdbKitFor('esdb://127.0.0.1:2113?tls=false').library).toBe('@eventstore/db-client');
    expect(esdbKitFor('kurrent://127.0.0.1:2113?tls=false').library).toBe('@kurrent/kurrentdb-client');
    expect(() => esdbKitFor('http://127.0.0.1:2113')).toThrow(/EVENTSTORE_URL must start with esdb:\/\//);
  });

  it('reads the actual revision of a conflict from either client', () => {
    const details = { streamName: 's', expected: 3n, current: 7n } as const;
    expect(eventStoreDbKit.wrongExpectedVersion(new OldConflict(undefined, details))).toEqual({
      actualVersion: 7n,
    });
    expect(kurrentDbKit.wrongExpectedVersion(new KurrentConflict(undefined, details))).toEqual({
      actualVersion: 7n,
    });
    expect(kurrentDbKit.wrongExpectedVersion(new OldConflict(undefined, details))).toBeUndefined();
    expect(eventStoreDbKit.wrongExpectedVersion(new Error('x'))).toBeUndefined();
  });

  it('opens and closes a store on either client without a server (connections are made on first use)', async () => {
    for (const url of ['esdb://127.0.0.1:1?tls=false', 'kurrentdb://127.0.0.1:1?tls=false']) {
      const store = new EsdbEventStore(url, testEventRegistry);
      await store.close();
    }
  });
});
