export * from './port';
export * from './errors';
export * from './dead-letter';
export * from './memory/memory-message-bus';
export * from './kafka/kafka-options';
export * from './kafka/kafka-message-bus';
export * from './kafka/platformatic-message-bus';
