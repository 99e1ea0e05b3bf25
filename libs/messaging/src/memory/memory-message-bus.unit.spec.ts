import { messageBusContract } from '../testing/message-bus.contract';
import { MemoryMessageBus } from './memory-message-bus';

describe('MemoryMessageBus (in-process adapter)', () => {
  messageBusContract(async () => {
    const bus = new MemoryMessageBus();
    return { bus, teardown: () => bus.close() };
  });
});
