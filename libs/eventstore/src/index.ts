export * from './port';
export * from './errors';
export * from './codec';
export * from './stored-metadata';
export * from './filter';
export * from './revision';
export * from './retention';
export * from './polling-subscription';
export * from './memory/memory-event-store';
export * from './postgres/postgres-event-store';
export * from './postgres/migrate';
export * from './esdb/esdb-kit';
export * from './esdb/esdb-event-store';
export * from './hash-chain';
export * from './verify/chain-report';
/** Audit tamper evidence: recomputes every event's hash-chain link and reports the first broken one (`hcn audit verify`). */
export { verifyHashChain } from './verify/verify-hash-chain';
export type { VerifyHashChainOptions } from './verify/verify-hash-chain';
/** The link checker verifyHashChain runs, for events read elsewhere (another site's stream). */
export { ChainChecker } from './verify/chain-checker';
export type { HasRetention, Period as ChainPeriod } from './verify/chain-checker';
export * from './postgres/scavenge';
export * from './subscription-health';
export * from './supervised-subscription';
