export * from './projection-checkpoint.entity';
export * from './data-source';
export * from './checkpoints';
