import { describeWithKafka } from '@hcn/testing';
import { kafkaBusSuite } from '../testing/kafka-bus.suites';
import { PlatformaticKafkaMessageBus } from './platformatic-message-bus';

describeWithKafka('PlatformaticKafkaMessageBus on @platformatic/kafka (real Kafka 3.9 broker)', () => {
  kafkaBusSuite((options) => new PlatformaticKafkaMessageBus(options));
});
