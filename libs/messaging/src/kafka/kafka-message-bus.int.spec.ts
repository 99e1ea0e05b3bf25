import { describeWithKafka, testKafkaBrokers } from '@hcn/testing';
import { Kafka, logLevel } from 'kafkajs';
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

  it('stays in its group through an outage longer than the session timeout, dead-letters nothing', async () => {
    const bus = new KafkaMessageBus({
      brokers: testKafkaBrokers(),
      clientId: 'hcn-outage',
      sessionTimeoutMs: 6000,
    });
    const admin = new Kafka({ brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
    const topic = `outage-${randomUUID()}`;
    const groupId = `g-${randomUUID()}`;
    try {
      await admin.connect();
      await bus.createTopics([{ name: topic, partitions: 1 }]);
      const handled: string[] = [];
      const dead: string[] = [];
      let outageFrom = 0;
      const consumer = await bus.consume({
        groupId,
        topics: [topic],
        fromBeginning: true,
        isTransient: () => true,
        handleBatch: async (m) => {
          outageFrom ||= Date.now();
          if (Date.now() < outageFrom + 14_000) throw new Error('EVENTSTORE.UNAVAILABLE'); // 2.3 session timeouts
          handled.push(...m.map((x) => x.value.toString()));
        },
      });
      const dlq = await bus.consume({
        groupId: `dlq-${randomUUID()}`,
        topics: [`${topic}.dlq`],
        fromBeginning: true,
        handleBatch: async (m) => void dead.push(...m.map((x) => x.value.toString())),
      });
      await bus.publish(topic, [{ key: 'k', value: 'report-1' }]);
      while (!outageFrom) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 10_000)); // well past the 6 s session timeout, still failing
      const { groups } = await admin.describeGroups([groupId]);
      const during = { state: groups[0].state, members: groups[0].members.length };
      const deadline = Date.now() + 20_000;
      while (handled.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      await Promise.all([consumer.stop(), dlq.stop()]);
      expect({ during, handled, dead }).toEqual({
        during: { state: 'Stable', members: 1 },
        handled: ['report-1'],
        dead: [],
      });
    } finally {
      await admin.disconnect();
      await bus.close();
    }
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
