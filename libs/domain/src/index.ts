export * from './errors';
export * from './decider';
export * from './node/node.state';
export * from './node/node.commands';
export * from './node/node.decider';
export * from './equality';
