export * from './config';
export * from './adapters';
export * from './topics';
export * from './embedded-postgres';
export * from './process';
export * from './progress-bar';
export * from './podman-service';
