export * from './projection-checkpoint.entity';
export * from './data-source';
export * from './checkpoints';
export * from './node-state.entity';
export * from './domain-summary.entity';
