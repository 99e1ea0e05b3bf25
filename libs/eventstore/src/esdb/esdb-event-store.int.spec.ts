import { eventStoreContract } from '../testing/event-store.contract';
import { TestEvent, testEventRegistry } from '../testing/test-events';
import { EsdbEventStore } from './esdb-event-store';
import { eventStoreDbKit } from './eventstoredb-kit';
import { kurrentDbKit } from './kurrentdb-kit';

/**
 * The same contract against a live EventStoreDB/KurrentDB, once per client library (`@eventstore/db-client` and its
 * successor `@kurrent/kurrentdb-client`), run only when EVENTSTORE_URL is set (e.g. `esdb://127.0.0.1:2113?tls=false`;
 * the KurrentDB client gets it with the kurrentdb:// scheme). EventStoreDB cannot run on this project's CI machines,
 * so this suite has NOT been run against a live server here; see README.
 */
const url = process.env.EVENTSTORE_URL;
if (!url)
  console.warn('!!! SKIPPING EventStoreDB contract: EVENTSTORE_URL is not set (no live EventStoreDB here)');
const clients = [
  { kit: eventStoreDbKit, url: url?.replace(/^[a-z]+(\+discover)?:\/\//i, 'esdb$1://') },
  { kit: kurrentDbKit, url: url?.replace(/^[a-z]+(\+discover)?:\/\//i, 'kurrentdb$1://') },
];
for (const client of clients)
  (url ? describe : describe.skip)(`EsdbEventStore on ${client.kit.library} (live EventStoreDB)`, () => {
    eventStoreContract(async () => {
      const store = new EsdbEventStore<TestEvent>(client.url!, testEventRegistry, client.kit);
      return { store, teardown: () => store.close() };
    });
  });
