import { describeWithKafka, testKafkaBrokers } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import type { Consumer, IncomingMessage, MessageBus } from '../port';
import { KafkaMessageBus } from './kafka-message-bus';
import { PlatformaticKafkaMessageBus } from './platformatic-message-bus';

async function until(done: () => boolean, ms = 20000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * The two Kafka clients side by side on one broker, as during a switch of HCN_KAFKA_CLIENT one process at a time:
 * the same key lands on the same partition whichever client published it, each client reads what the other wrote
 * (keys, headers, values), and members of both clients share one consumer group.
 */
describeWithKafka('kafkajs and @platformatic/kafka together (real Kafka 3.9 broker)', () => {
  let kafkajs: MessageBus;
  let platformatic: MessageBus;
  const consumers: Consumer[] = [];
  beforeAll(() => {
    kafkajs = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'interop-kafkajs' });
    platformatic = new PlatformaticKafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'interop-plt' });
  });
  afterEach(async () => void (await Promise.all(consumers.splice(0).map((c) => c.stop()))));
  afterAll(async () => void (await Promise.all([kafkajs.close(), platformatic.close()])));

  const collect = async (
    bus: MessageBus,
    topic: string,
    into: IncomingMessage[],
    groupId = `g-${randomUUID()}`,
  ) =>
    consumers.push(
      await bus.consume({
        groupId,
        topics: [topic],
        fromBeginning: true,
        handleBatch: async (m) => void into.push(...m),
      }),
    );

  it('puts 300 random keys on the same partitions (7 partitions) from either client', async () => {
    const topic = `interop-keys-${randomUUID()}`;
    await kafkajs.createTopics([{ name: topic, partitions: 7 }]);
    const keys = Array.from({ length: 300 }, () => randomUUID().slice(0, 4 + Math.floor(Math.random() * 20)));
    await kafkajs.publish(
      topic,
      keys.map((key) => ({ key, value: 'kafkajs' })),
    );
    await platformatic.publish(
      topic,
      keys.map((key) => ({ key, value: 'platformatic' })),
    );
    const got: IncomingMessage[] = [];
    await collect(kafkajs, topic, got);
    // at-least-once: a batch may come again (a rebalance before its commit), so count each offset once
    const unique = () => [...new Map(got.map((m) => [`${m.partition}/${m.offset}`, m])).values()];
    await until(() => unique().length >= keys.length * 2);
    const partitionOf = (client: string) =>
      Object.fromEntries(
        unique()
          .filter((m) => m.value.toString() === client)
          .map((m) => [m.key, m.partition]),
      );
    expect(unique()).toHaveLength(keys.length * 2);
    expect(partitionOf('platformatic')).toEqual(partitionOf('kafkajs'));
    expect(new Set(got.map((m) => m.partition)).size).toBe(7);
  }, 60000);

  it("reads the other client's messages with their keys, headers and values", async () => {
    const topic = `interop-read-${randomUUID()}`;
    await platformatic.createTopics([{ name: topic, partitions: 2 }]);
    const message = (from: string) => ({
      key: `k-${from}`,
      value: `v-${from}`,
      headers: { from, 'x-ü': 'é' },
    });
    await kafkajs.publish(topic, [message('kafkajs')]);
    await platformatic.publish(topic, [message('platformatic')]);
    const [byKafkajs, byPlatformatic]: IncomingMessage[][] = [[], []];
    await collect(kafkajs, topic, byKafkajs);
    await collect(platformatic, topic, byPlatformatic);
    await until(() => byKafkajs.length >= 2 && byPlatformatic.length >= 2);
    const view = (ms: IncomingMessage[]) =>
      ms
        .map((m) => ({ key: m.key, value: m.value.toString(), headers: m.headers }))
        .sort((a, b) => String(a.key).localeCompare(String(b.key)));
    expect(view(byPlatformatic)).toEqual([message('kafkajs'), message('platformatic')]);
    expect(view(byKafkajs)).toEqual(view(byPlatformatic));
  }, 60000);

  it('shares one consumer group between a kafkajs member and a platformatic member', async () => {
    const topic = `interop-group-${randomUUID()}`;
    await kafkajs.createTopics([{ name: topic, partitions: 4 }]);
    const groupId = `g-${randomUUID()}`;
    const [a, b]: IncomingMessage[][] = [[], []];
    await collect(kafkajs, topic, a, groupId);
    await collect(platformatic, topic, b, groupId);
    const sent = Array.from({ length: 80 }, (_, i) => ({ key: `k${i}`, value: `m${i}` }));
    await kafkajs.publish(topic, sent);
    await until(() => a.length + b.length >= sent.length);
    await new Promise((r) => setTimeout(r, 300));
    expect([...a, ...b].map((m) => m.value.toString()).sort()).toEqual(sent.map((m) => m.value).sort());
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const partitionsOf = (ms: IncomingMessage[]) => new Set(ms.map((m) => m.partition));
    expect([...partitionsOf(a)].filter((p) => partitionsOf(b).has(p))).toEqual([]);
  }, 60000);
});
