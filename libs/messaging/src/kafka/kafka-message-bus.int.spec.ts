import { describeWithKafka, testKafkaBrokers } from '@hcn/testing';
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
});
