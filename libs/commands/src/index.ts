export * from './command-context';
export * from './command-engine';
export * from './types';
export * from './precondition';
