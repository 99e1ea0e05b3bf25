export * from './port';
export * from './errors';
export * from './progress';
export * from './redis-queue-meter';
