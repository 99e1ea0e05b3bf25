import { describeWithKafkaSasl, testKafkaSasl } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { BusAuthenticationError } from '../errors';
import { messageBusContract } from '../testing/message-bus.contract';
import { KafkaMessageBus, KafkaMessageBusOptions } from './kafka-message-bus';

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
 * The broker's SASL_PLAINTEXT listener with SCRAM-SHA-512 (the suite's broker, user made at format time): the right
 * credentials publish and consume, no SASL or a wrong password is refused, the latter as an authentication failure.
 */
describeWithKafkaSasl('KafkaMessageBus over SASL/SCRAM-SHA-512 (real Kafka 3.9 broker)', () => {
  const settings = (overrides: Partial<KafkaMessageBusOptions> = {}): KafkaMessageBusOptions => {
    const { brokers, mechanism, username, password } = testKafkaSasl();
    return { brokers, clientId: 'hcn-sasl', sasl: { mechanism, username, password }, ...overrides };
  };

  it('publishes and consumes with the right credentials', async () => {
    const bus = new KafkaMessageBus(settings());
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
      const deadline = Date.now() + 20000;
      while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await consumer.stop();
      expect(received).toEqual(['one', 'two']);
    } finally {
      await bus.close();
    }
  }, 60000);

  it('refuses a client without SASL: publishing fails (BUS.UNAVAILABLE) and does not hang', async () => {
    const bus = new KafkaMessageBus(settings({ sasl: undefined, clientId: 'hcn-no-sasl' }));
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
    const bus = new KafkaMessageBus({ ...good, clientId: 'hcn-wrong-password', sasl });
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
      const bus = new KafkaMessageBus(settings({ clientId: 'hcn-sasl-contract' }));
      return { bus, teardown: () => bus.close() };
    });
  });
});
