export * from './model';
export * from './decision';
export * from './errors';
export * from './assert-never';
export {
  RESOURCE_KEYS,
  RESOURCE_NAMES,
  ZERO_RESOURCES,
  addResources,
  subtractResources,
  freeOf,
  fitsIn,
  firstShortfall,
  isValidAmount,
  formatAmount,
} from './resources';
export type { ResourceKey } from './resources';
export { fnv1a32, mulberry32, decisionSeed } from './random';
export { constraintsOf, compileRequest } from './constraints';
export type { CompiledRequest, DomainLookup } from './constraints';
export { describeConstraint } from './labels';
export { SchedulingIndex } from './tree/scheduling-index';
export type { DomainSummary } from './tree/scheduling-index';
export type { Candidate, DomainState, NodeState, NodeCounts } from './tree/states';
export { decide } from './descent/decide';
export { eligibleNodes, FIT_FILTERS } from './eligibility';
export type { Eligibility } from './eligibility';
export { compactVerdicts, recordedScopes, DEFAULT_TOP_K, EXAMPLES_PER_REASON } from './compact-verdicts';
export { compactDecision } from './compact-decision';
export type { CompactVerdicts, RecordedHop, RecordedRejection, RecordedJudging } from './compact-verdicts';
export { ROOT_POLICY } from './descent/evaluate';
export type { Filter, Scorer, Rejection, ScoreContext, DeviceScorer } from './plugins/types';
export * from './devices/choose-devices';
export type { DeviceSlot } from './devices/device-slot';
export {
  FILTERS,
  SCORERS,
  DEVICE_SCORERS,
  FILTER_REASONS,
  scorerFor,
  activeFilters,
  isPolicyName,
  POLICY_NAMES,
} from './plugins/registry';
export type { ActiveFilters, NodeCheck, DomainCheck } from './plugins/registry';
export * from './plugins/reasons';
