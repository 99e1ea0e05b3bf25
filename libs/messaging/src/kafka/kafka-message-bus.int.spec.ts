import { describeWithKafka, testKafkaBrokers } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { messageBusContract } from '../testing/message-bus.contract';
import { KafkaMessageBus } from './kafka-message-bus';

describeWithKafka('KafkaMessageBus (real Kafka 3.9 broker)', () => {
  messageBusContract(async () => {
    const bus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'hcn-contract' });
    return { bus, teardown: () => bus.close() };
  });

  it('reports an unreachable broker as BUS.UNAVAILABLE', async () => {
    const bus = new KafkaMessageBus({ brokers: ['127.0.0.1:1'] });
    await expect(bus.publish('nowhere', [{ key: 'k', value: 'v' }])).rejects.toMatchObject({
      code: 'BUS.UNAVAILABLE',
    });
    await bus.close();
  }, 60000);

  it('handles batches of several partitions at once with concurrentPartitions, each partition in order', async () => {
    const bus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'hcn-concurrent' });
    const topic = `concurrent-${randomUUID()}`;
    try {
      await bus.createTopics([{ name: topic, partitions: 2 }]);
      const keys = Array.from({ length: 20 }, (_, i) => `key-${i}`);
      await bus.publish(
        topic,
        keys.flatMap((key) => [0, 1, 2].map((n) => ({ key, value: `${key}:${n}` }))),
      );
      // The first batch of each partition waits for a batch of the other one: only concurrent handling ends.
      const started = new Set<number>();
      let bothStarted: () => void = () => undefined;
      const overlap = new Promise<void>((resolve) => (bothStarted = resolve));
      const received: string[] = [];
      let waitedInVain = false;
      const consumer = await bus.consume({
        groupId: `g-${randomUUID()}`,
        topics: [topic],
        fromBeginning: true,
        concurrentPartitions: 2,
        handleBatch: async (messages) => {
          started.add(messages[0].partition);
          if (started.size === 2) bothStarted();
          const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), 5000));
          if (!(await Promise.race([overlap.then(() => true), timeout]))) waitedInVain = true;
          received.push(...messages.map((m) => m.value.toString()));
        },
      });
      const deadline = Date.now() + 20000;
      while (received.length < keys.length * 3 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      await consumer.stop();
      expect(started.size).toBe(2);
      expect(waitedInVain).toBe(false);
      for (const key of keys) {
        expect(received.filter((v) => v.startsWith(`${key}:`))).toEqual([0, 1, 2].map((n) => `${key}:${n}`));
      }
    } finally {
      await bus.close();
    }
  }, 60000);
});
