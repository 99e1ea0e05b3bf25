import { KafkaMessageBus, MemoryMessageBus, PlatformaticKafkaMessageBus } from '@hcn/messaging';
import { openMessageBus } from './adapters';
import { ConfigError } from './config';
import { DEFAULT_KAFKA_CLIENT, describeKafkaSecurity, loadKafkaSecurity } from './kafka-security';

/** HCN_KAFKA_CLIENT: which Kafka client library the bus runs on, checked at start-up with the other Kafka settings. */
describe('Kafka client selection (HCN_KAFKA_CLIENT)', () => {
  it('takes kafkajs or platformatic, case-insensitive, and leaves the default to openMessageBus when unset', () => {
    expect(loadKafkaSecurity('hub', { HCN_KAFKA_CLIENT: 'platformatic' })).toEqual({
      client: 'platformatic',
    });
    expect(loadKafkaSecurity('hub', { HCN_KAFKA_CLIENT: ' KafkaJS ' })).toEqual({ client: 'kafkajs' });
    expect(loadKafkaSecurity('hub', { HCN_KAFKA_CLIENT: '' })).toEqual({});
    expect(describeKafkaSecurity({ client: 'platformatic' })).toBe('plaintext, client platformatic');
    expect(describeKafkaSecurity({})).toBe(`plaintext, client ${DEFAULT_KAFKA_CLIENT}`);
  });

  it('refuses an unknown client at start-up, naming the variable and the choices', () => {
    let error: unknown;
    try {
      loadKafkaSecurity('agent', { HCN_KAFKA_CLIENT: 'librdkafka', KAFKA_SSL: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).details.problems).toEqual([
      expect.stringMatching(/^KAFKA_SSL: /),
      'HCN_KAFKA_CLIENT: HCN_KAFKA_CLIENT must be one of kafkajs, platformatic (the Kafka client library; default kafkajs)',
    ]);
  });

  it('opens the bus on the chosen client; the in-process bus without brokers whatever the client', async () => {
    const brokers = ['127.0.0.1:9092'];
    const buses = [
      openMessageBus(brokers, 'spec', {}),
      openMessageBus(brokers, 'spec', { client: 'kafkajs' }),
      openMessageBus(brokers, 'spec', { client: 'platformatic', sessionTimeoutMs: 6000 }),
      openMessageBus(undefined, 'spec', { client: 'platformatic' }),
    ];
    expect(buses.map((b) => b.constructor)).toEqual([
      DEFAULT_KAFKA_CLIENT === 'kafkajs' ? KafkaMessageBus : PlatformaticKafkaMessageBus,
      KafkaMessageBus,
      PlatformaticKafkaMessageBus,
      MemoryMessageBus,
    ]);
    await Promise.all(buses.map((b) => b.close()));
  });
});
