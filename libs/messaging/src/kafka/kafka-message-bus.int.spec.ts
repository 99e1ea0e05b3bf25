import { describeWithKafka } from '@hcn/testing';
import { kafkaBusSuite } from '../testing/kafka-bus.suites';
import { KafkaMessageBus } from './kafka-message-bus';

describeWithKafka('KafkaMessageBus on kafkajs (real Kafka 3.9 broker)', () => {
  kafkaBusSuite((options) => new KafkaMessageBus(options));
});
