import { messageBusContract } from '../testing/message-bus.contract';
import { MemoryMessageBus } from './memory-message-bus';

describe('MemoryMessageBus (in-process adapter)', () => {
  messageBusContract(async () => {
    const bus = new MemoryMessageBus();
    return { bus, teardown: () => bus.close() };
  });
});

describe('MemoryMessageBus memory', () => {
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('drops what every group committed, never what a group still has to read', async () => {
    const bus = new MemoryMessageBus();
    const fast: string[] = [];
    let slowGate = false;
    const slow: string[] = [];
    await bus.consume({
      groupId: 'fast',
      topics: ['t'],
      fromBeginning: true,
      handleBatch: async (m) => void fast.push(...m.map((x) => x.value.toString())),
    });
    await bus.consume({
      groupId: 'slow',
      topics: ['t'],
      fromBeginning: true,
      handleBatch: async (m) => {
        while (!slowGate) await new Promise((r) => setTimeout(r, 5));
        slow.push(...m.map((x) => x.value.toString()));
      },
    });
    await bus.publish(
      't',
      Array.from({ length: 3000 }, (_, i) => ({ key: `k${i % 7}`, value: String(i) })),
    );
    await until(() => fast.length === 3000);
    expect(bus.retainedMessages).toBeGreaterThan(2000); // the slow group has read almost nothing yet
    slowGate = true;
    await until(() => slow.length === 3000);
    await until(() => bus.retainedMessages === 0);
    expect([fast.length, slow.length, bus.retainedMessages]).toEqual([3000, 3000, 0]);
    await bus.close();
  });

  it('keeps a bounded tail of a topic nobody reads', async () => {
    const bus = new MemoryMessageBus();
    await bus.createTopics([{ name: 'unread', partitions: 1 }]);
    for (let i = 0; i < 3; i++)
      await bus.publish(
        'unread',
        Array.from({ length: 6000 }, (_, n) => ({ key: 'k', value: `${i}-${n}` })),
      );
    expect(bus.retainedMessages).toBe(10_000);
    const late: string[] = [];
    await bus.consume({
      groupId: 'late',
      topics: ['unread'],
      fromBeginning: true,
      handleBatch: async (m) => void late.push(...m.map((x) => x.value.toString())),
    });
    await until(() => late.length === 10_000);
    expect([late[0], late.at(-1)]).toEqual(['1-2000', '2-5999']);
    await bus.close();
  });
});
