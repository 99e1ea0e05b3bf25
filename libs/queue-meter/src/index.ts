export * from './port';
export * from './errors';
export * from './redis-url';
export * from './progress';
export * from './redis-queue-meter';
