/** Resource amounts: CPU in millicores, memory in bytes, accelerator devices. */
export interface Resources {
  readonly cpuMillis: number;
  readonly memoryBytes: number;
  readonly accelerators: number;
}

/** One node as the hub sees it when scheduling. */
export interface NodeView {
  readonly nodeId: string;
  readonly domainId: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly online: boolean;
  readonly draining: boolean;
  readonly capacity: Resources;
  /** Reserved so far. */
  readonly allocated: Resources;
}

/** The scheduling policies a domain may name. */
export type PolicyName = 'random' | 'least-loaded' | 'bin-pack' | 'spread' | 'round-robin' | 'locality';

/** Every policy name, in a fixed order. */
export const POLICY_NAMES: readonly PolicyName[] = [
  'random',
  'least-loaded',
  'bin-pack',
  'spread',
  'round-robin',
  'locality',
];

/** One domain (global, region, site, edge group, ...) of the tree. */
export interface DomainView {
  readonly domainId: string;
  readonly parentId: string | null;
  /** Own region; `null` inherits the nearest ancestor's. */
  readonly region: string | null;
  readonly labels: Readonly<Record<string, string>>;
  readonly policy: PolicyName;
  /** Allocations placed so far in this domain (drives round-robin). */
  readonly placements: number;
}

/** Everything the scheduler reads: the domain tree and the nodes in it. */
export interface ClusterSnapshot {
  readonly domains: readonly DomainView[];
  readonly nodes: readonly NodeView[];
}

/** Operators of label constraints. */
export type LabelOperator = '=' | '!=' | 'regex' | 'in' | 'notin' | 'exists';

/** A constraint on one node label; `regex` is anchored (the whole value must match). */
export interface LabelConstraint {
  readonly key: string;
  readonly op: LabelOperator;
  readonly value?: string;
  readonly values?: readonly string[];
}

/** Affinity (one of these) and anti-affinity (none of these) lists. */
export interface AffinityLists {
  readonly affinity: readonly string[];
  readonly antiAffinity: readonly string[];
}

/** Hard constraints of a workload plus the soft preferences of the `locality` policy. */
export interface Constraints {
  readonly labels: readonly LabelConstraint[];
  /** A node's domain or one of its ancestors must (not) be listed. */
  readonly domains: AffinityLists;
  /** A node's region (own or inherited from the nearest ancestor that has one) must (not) be listed. */
  readonly regions: AffinityLists;
  readonly nodeBlacklist: readonly string[];
  /** Soft preference for `locality`. */
  readonly preferDomains: readonly string[];
  /** Soft preference for `locality`. */
  readonly preferRegions: readonly string[];
}

/** One placement to decide: one instance of a workload. */
export interface PlacementRequest {
  readonly workloadId: string;
  readonly instance: number;
  readonly resources: Resources;
  readonly constraints: Constraints;
  /** Where the descent starts; default: the tree's roots. */
  readonly rootDomainId?: string;
  /** Nodes to avoid for this decision only (e.g. the node just lost). */
  readonly excludeNodes?: readonly string[];
}

/** Constraints that constrain nothing. */
export const NO_CONSTRAINTS: Constraints = Object.freeze({
  labels: [],
  domains: { affinity: [], antiAffinity: [] },
  regions: { affinity: [], antiAffinity: [] },
  nodeBlacklist: [],
  preferDomains: [],
  preferRegions: [],
});
