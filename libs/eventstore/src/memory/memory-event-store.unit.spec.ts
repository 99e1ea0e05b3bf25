import { MemoryEventStore } from './memory-event-store';
import { eventStoreContract } from '../testing/event-store.contract';
import { TestEvent, testEventRegistry } from '../testing/test-events';

describe('MemoryEventStore (in-memory adapter, for unit tests)', () => {
  eventStoreContract(async () => {
    const store = new MemoryEventStore<TestEvent>(testEventRegistry);
    return { store, teardown: () => store.close() };
  });
});
