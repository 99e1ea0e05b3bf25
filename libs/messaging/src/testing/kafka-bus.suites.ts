import { testKafkaBrokers, testKafkaSasl } from '@hcn/testing';
import { Kafka, logLevel } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { BusAuthenticationError } from '../errors';
import type { KafkaMessageBusOptions } from '../kafka/kafka-options';
import type { IncomingMessage, MessageBus } from '../port';
import { messageBusContract } from './message-bus.contract';

/** Builds the Kafka bus under test (kafkajs or @platformatic/kafka) from the shared options. */
export type KafkaBusFactory = (options: KafkaMessageBusOptions) => MessageBus;

/**
 * Keys and their murmur2 hashes as Apache Kafka's own tests state them (UtilsTest.testMurmur2): Java producers put a
 * keyed record on partition `(hash & 0x7fffffff) % partitions`.
 */
export const JAVA_MURMUR2_VECTORS: ReadonlyArray<readonly [string, number]> = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
];

/** The partition Java's default partitioner picks for a key of `hash` among `partitions`. */
export function javaPartition(hash: number, partitions: number): number {
  return (hash & 0x7fffffff) % partitions;
}

/** Polls until `done` or `ms` have passed. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** How the operation ended within `ms`: its value, its error, or 'hung'. */
async function outcome<T>(work: Promise<T>, ms: number): Promise<{ ok: T } | { error: unknown } | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
  try {
    return await Promise.race([
      work.then(
        (ok) => ({ ok }),
        (error: unknown) => ({ error }),
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What every Kafka adapter must do on the real broker beyond the MessageBus contract: Java's partitions for keys,
 * BUS.UNAVAILABLE for an unreachable broker, membership kept through a long outage of the handler's store, and
 * concurrent partitions. Call inside describeWithKafka.
 */
export function kafkaBusSuite(make: KafkaBusFactory): void {
  describe('the message bus contract', () => {
    messageBusContract(async () => {
      const bus = make({ brokers: testKafkaBrokers(), clientId: 'hcn-contract' });
      return { bus, teardown: () => bus.close() };
    });
  });

  it("puts keyed messages on the partitions Java clients (and kafkajs) choose: Kafka's murmur2 vectors", async () => {
    const bus = make({ brokers: testKafkaBrokers(), clientId: 'hcn-partitioner' });
    const topics = { 3: `java-3-${randomUUID()}`, 8: `java-8-${randomUUID()}` } as const;
    try {
      await bus.createTopics([
        { name: topics[3], partitions: 3 },
        { name: topics[8], partitions: 8 },
      ]);
      const got: IncomingMessage[] = [];
      const consumer = await bus.consume({
        groupId: `g-${randomUUID()}`,
        topics: [topics[3], topics[8]],
        fromBeginning: true,
        handleBatch: async (m) => void got.push(...m),
      });
      await bus.publishAll(
        Object.values(topics).map((topic) => ({
          topic,
          messages: JAVA_MURMUR2_VECTORS.map(([key]) => ({ key, value: key })),
        })),
      );
      await until(() => got.length >= JAVA_MURMUR2_VECTORS.length * 2, 20000);
      await consumer.stop();
      const placed = (topic: string) =>
        Object.fromEntries(got.filter((m) => m.topic === topic).map((m) => [m.key, m.partition]));
      for (const n of [3, 8] as const) {
        const expected = Object.fromEntries(
          JAVA_MURMUR2_VECTORS.map(([k, hash]) => [k, javaPartition(hash, n)]),
        );
        expect(placed(topics[n])).toEqual(expected);
      }
    } finally {
      await bus.close();
    }
  }, 60000);

  it('reports an unreachable broker as BUS.UNAVAILABLE', async () => {
    const bus = make({ brokers: ['127.0.0.1:1'] });
    await expect(bus.publish('nowhere', [{ key: 'k', value: 'v' }])).rejects.toMatchObject({
      code: 'BUS.UNAVAILABLE',
    });
    await bus.close();
  }, 60000);

  it('stays in its group through an outage longer than the session timeout, dead-letters nothing', async () => {
    const bus = make({ brokers: testKafkaBrokers(), clientId: 'hcn-outage', sessionTimeoutMs: 6000 });
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
      await until(() => outageFrom > 0, 20000);
      await new Promise((r) => setTimeout(r, 10_000)); // well past the 6 s session timeout, still failing
      const { groups } = await admin.describeGroups([groupId]);
      const during = { state: groups[0].state, members: groups[0].members.length };
      await until(() => handled.length > 0, 20000);
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
    const bus = make({ brokers: testKafkaBrokers(), clientId: 'hcn-concurrent' });
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
      await until(() => received.length >= keys.length * 3, 20000);
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
}

/**
 * The broker's SASL_PLAINTEXT listener with SCRAM-SHA-512 (the suite's broker, user made at format time): the right
 * credentials publish and consume (the whole contract), no SASL or a wrong password is refused, the latter as an
 * authentication failure. Call inside describeWithKafkaSasl.
 */
export function kafkaSaslSuite(make: KafkaBusFactory): void {
  const settings = (overrides: Partial<KafkaMessageBusOptions> = {}): KafkaMessageBusOptions => {
    const { brokers, mechanism, username, password } = testKafkaSasl();
    return { brokers, clientId: 'hcn-sasl', sasl: { mechanism, username, password }, ...overrides };
  };

  it('publishes and consumes with the right credentials', async () => {
    const bus = make(settings());
    const topic = `sasl-${randomUUID()}`;
    try {
      await bus.createTopics([{ name: topic, partitions: 1 }]);
      const received: string[] = [];
      const consumer = await bus.consume({
        groupId: `g-${randomUUID()}`,
        topics: [topic],
        fromBeginning: true,
        handleBatch: async (m) => void received.push(...m.map((x) => x.value.toString())),
      });
      await bus.publish(topic, [
        { key: 'k', value: 'one' },
        { key: 'k', value: 'two' },
      ]);
      await until(() => received.length >= 2, 20000);
      await consumer.stop();
      expect(received).toEqual(['one', 'two']);
    } finally {
      await bus.close();
    }
  }, 60000);

  it('refuses a client without SASL: publishing fails (BUS.UNAVAILABLE) and does not hang', async () => {
    const bus = make(settings({ sasl: undefined, clientId: 'hcn-no-sasl' }));
    try {
      const result = await outcome(bus.publish(`sasl-${randomUUID()}`, [{ key: 'k', value: 'v' }]), 30000);
      expect(result).toEqual({ error: expect.objectContaining({ code: 'BUS.UNAVAILABLE' }) });
    } finally {
      await bus.close();
    }
  }, 60000);

  it('refuses a wrong password as an authentication failure, on publish and on consume', async () => {
    const good = settings();
    const sasl = { ...good.sasl!, password: `${good.sasl!.password}-wrong` };
    const bus = make({ ...good, clientId: 'hcn-wrong-password', sasl });
    try {
      const published = await outcome(bus.publish(`sasl-${randomUUID()}`, [{ key: 'k', value: 'v' }]), 30000);
      expect(published).toEqual({ error: expect.any(BusAuthenticationError) });
      const error = (published as { error: BusAuthenticationError }).error;
      expect(error.code).toBe('BUS.UNAVAILABLE'); // still "the bus is down" for callers that only tell that
      expect(error.message).toMatch(/authentication failed/);
      expect(error.message).toMatch(/SCRAM-SHA-512/i);
      const consumed = await outcome(
        bus.consume({ groupId: `g-${randomUUID()}`, topics: ['sasl-x'], handleBatch: async () => undefined }),
        30000,
      );
      expect(consumed).toEqual({ error: expect.any(BusAuthenticationError) });
    } finally {
      await bus.close();
    }
  }, 90000);

  describe('the message bus contract over SASL', () => {
    messageBusContract(async () => {
      const bus = make(settings({ clientId: 'hcn-sasl-contract' }));
      return { bus, teardown: () => bus.close() };
    });
  });
}
