export * from './errors';
export * from './validation';
export * from './envelope';
export * from './registry';
export * from './metadata.schema';
export * from './events';
export * from './util/wakeup';
