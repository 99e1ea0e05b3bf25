export * from './cluster-checkpoint';
export * from './cluster-fold';
export * from './cluster-snapshot';
export * from './device-views';
export * from './site-summary';
export * from './view-basis';
export * from './federated-decision';
export * from './site-candidates';
