// Jest configuration: one config, suites selected by cost through HCN_TEST_KIND (unit | int | e2e | all).
const kind = process.env.HCN_TEST_KIND || 'all';
const patterns = {
  unit: ['\\.unit\\.spec\\.ts$'],
  int: ['\\.int\\.spec\\.ts$'],
  e2e: ['\\.e2e\\.spec\\.ts$'],
  all: ['\\.(unit|int|e2e)\\.spec\\.ts$'],
};
const aliases = {
  '^@hcn/contracts$': '<rootDir>/libs/contracts/src',
  '^@hcn/domain$': '<rootDir>/libs/domain/src',
  '^@hcn/eventstore$': '<rootDir>/libs/eventstore/src',
  '^@hcn/messaging$': '<rootDir>/libs/messaging/src',
  '^@hcn/read-models$': '<rootDir>/libs/read-models/src',
  '^@hcn/scheduling$': '<rootDir>/libs/scheduling/src',
  '^@hcn/testing$': '<rootDir>/test/support',
  '^@hcn/platform$': '<rootDir>/libs/platform/src',
  '^@hcn/audit$': '<rootDir>/libs/audit/src',
  '^@hcn/commands$': '<rootDir>/libs/commands/src',
  '^@hcn/cluster$': '<rootDir>/libs/cluster/src',
  '^@hcn/queue-meter$': '<rootDir>/libs/queue-meter/src',
};
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testRegex: patterns[kind] || patterns.all,
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  moduleNameMapper: aliases,
  transform: { '^.+\\.ts$': ['@swc/jest', { swcrc: false, ...require('./scripts/swc-options.js') }] },
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/summary-reporter.js'],
};
