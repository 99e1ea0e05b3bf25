import type { CompiledRequest } from '../constraints';
import { domainAffinityFilter } from './filters/domain-affinity';
import { domainCapacityFilter } from './filters/domain-capacity';
import { domainDevicesFilter } from './filters/domain-devices';
import { domainUsableFilter } from './filters/domain-usable';
import { nodeAllowlistFilter } from './filters/node-allowlist';
import { nodeBlacklistFilter } from './filters/node-blacklist';
import { nodeCapacityFilter } from './filters/node-capacity';
import { nodeDevicesFilter } from './filters/node-devices';
import { nodeDrainingFilter } from './filters/node-draining';
import { nodeExcludedFilter } from './filters/node-excluded';
import { nodeLabelsFilter } from './filters/node-labels';
import { nodeOnlineFilter } from './filters/node-online';
import { nodeRuntimeFilter } from './filters/node-runtime';
import { nodeModelFrameworkFilter } from './filters/node-model-framework';
import { regionAffinityFilter } from './filters/region-affinity';
import { binPackScorer } from './scorers/bin-pack';
import { leastLoadedScorer } from './scorers/least-loaded';
import { localityScorer } from './scorers/locality';
import { randomScorer } from './scorers/random';
import { roundRobinScorer } from './scorers/round-robin';
import { spreadScorer } from './scorers/spread';
import { fragmentationScorer } from './device-scorers/fragmentation';
import { healthScorer } from './device-scorers/health';
import { topologyScorer } from './device-scorers/topology';
import { vendorPreferenceScorer } from './device-scorers/vendor-preference';
import type { DeviceScorer, Filter, Scorer } from './types';

/** Every filter, in the order they run; the first rejection is the candidate's reason. */
export const FILTERS: readonly Filter[] = [
  nodeExcludedFilter,
  nodeBlacklistFilter,
  nodeAllowlistFilter,
  nodeOnlineFilter,
  nodeDrainingFilter,
  nodeRuntimeFilter,
  nodeModelFrameworkFilter,
  domainAffinityFilter,
  regionAffinityFilter,
  domainUsableFilter,
  nodeLabelsFilter,
  nodeCapacityFilter,
  nodeDevicesFilter,
  domainCapacityFilter,
  domainDevicesFilter,
];

/** Every device scorer; for requests with devices their mean is half of a node's score. */
export const DEVICE_SCORERS: readonly DeviceScorer[] = [
  topologyScorer,
  fragmentationScorer,
  healthScorer,
  vendorPreferenceScorer,
];

/** Every scorer, one per policy: the one place a policy is added (its name becomes a PolicyName). */
export const SCORERS = [
  randomScorer,
  leastLoadedScorer,
  binPackScorer,
  spreadScorer,
  roundRobinScorer,
  localityScorer,
] as const satisfies readonly Scorer[];

/** The scheduling policies a domain may name: the names of the registry's scorers. */
export type PolicyName = (typeof SCORERS)[number]['name'];

/** Every policy name, in registry order. */
export const POLICY_NAMES: readonly PolicyName[] = SCORERS.map((s) => s.name);

const SCORER_BY_NAME: ReadonlyMap<string, Scorer> = new Map(SCORERS.map((s) => [s.name, s]));

/** True when `name` names a registered scorer. */
export function isPolicyName(name: string): name is PolicyName {
  return SCORER_BY_NAME.has(name);
}

/** A filter's node check. */
export type NodeCheck = NonNullable<Filter['node']>;
/** A filter's domain check. */
export type DomainCheck = NonNullable<Filter['domain']>;

/** The checks that can reject something for one request, in registry order. */
export interface ActiveFilters {
  readonly node: readonly NodeCheck[];
  readonly domain: readonly DomainCheck[];
}

/** The node and domain checks of the filters that are not idle for this request. */
export function activeFilters(request: CompiledRequest): ActiveFilters {
  const active = FILTERS.filter((f) => !f.idle?.(request));
  return {
    node: active.flatMap((f) => (f.node ? [f.node] : [])),
    domain: active.flatMap((f) => (f.domain ? [f.domain] : [])),
  };
}

/** Every reason code a filter can return. */
export const FILTER_REASONS: readonly string[] = FILTERS.flatMap((f) => f.reasons);

/** The scorer of a policy. */
export function scorerFor(policy: PolicyName): Scorer {
  const scorer = SCORER_BY_NAME.get(policy);
  if (!scorer) throw new Error(`no scorer named ${policy}`);
  return scorer;
}
