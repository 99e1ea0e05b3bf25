import { describeWithKafkaSasl } from '@hcn/testing';
import { kafkaSaslSuite } from '../testing/kafka-bus.suites';
import { KafkaMessageBus } from './kafka-message-bus';
import { PlatformaticKafkaMessageBus } from './platformatic-message-bus';

describeWithKafkaSasl('Kafka buses over SASL/SCRAM-SHA-512 (real Kafka 3.9 broker)', () => {
  describe('kafkajs', () => kafkaSaslSuite((options) => new KafkaMessageBus(options)));
  describe('@platformatic/kafka', () =>
    kafkaSaslSuite((options) => new PlatformaticKafkaMessageBus(options)));
});
