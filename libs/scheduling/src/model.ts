import type { PolicyName } from './plugins/registry';

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
  /** The node's accelerator devices with what is held on each (absent: none known). */
  readonly devices?: readonly DeviceView[];
  /** Runtimes the node's agent offers (absent: processes only). */
  readonly runtimes?: readonly string[];
  /** Model frameworks the node's agent serves, each with the runtimes it serves it with (absent: none). */
  readonly modelFrameworks?: readonly ServedFrameworkView[];
}

/** A model framework a node serves, and with which runtimes. */
export interface ServedFrameworkView {
  readonly framework: string;
  readonly runtimes: readonly string[];
}

/** One accelerator device of a node as the scheduler sees it. */
export interface DeviceView {
  readonly index: number;
  readonly vendor: string;
  readonly model: string;
  readonly memoryBytes: number;
  /** fp16 TFLOPS; 0 when unknown. */
  readonly tflopsFp16: number;
  /** 0–100. */
  readonly health: number;
  /** Id of its NVLink/HCCS island on the node (the lowest device index of the island). */
  readonly island: number;
  /** Slowest direct link inside its island in GB/s (0 for a device alone). */
  readonly islandBandwidthGBps: number;
  /** Normalized compute units by the exchange-rate table (0 when the model is unknown). */
  readonly computeUnits: number;
  /** Held whole by an allocation. */
  readonly wholeHeld: boolean;
  /** Memory handed out as slices. */
  readonly slicedBytes: number;
}

/** What a workload instance asks of accelerator devices (whole devices, or one memory slice of a shared one). */
export interface DeviceRequest {
  /** Whole devices; 1 with `sliceMemoryBytes`. */
  readonly count: number;
  readonly memoryPerDeviceBytes?: number;
  readonly tflopsFp16PerDevice?: number;
  /** Normalized compute units summed over the chosen devices. */
  readonly computeUnits?: number;
  readonly vendors?: AllowDeny;
  readonly models?: AllowDeny;
  /** `same-island`: every device in one NVLink/HCCS island. */
  readonly topology?: 'any' | 'same-island';
  /** A memory slice of one shared device instead of whole devices. */
  readonly sliceMemoryBytes?: number;
  /** Vendors in order of preference (soft). */
  readonly preferVendors?: readonly string[];
  /** Devices below this health are excluded (default 50). */
  readonly minHealth?: number;
}

/** Allow (one of these, when non-empty) and deny (none of these) lists. */
export interface AllowDeny {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
}

/** What one reservation holds of one device: the whole device, or a slice of its memory. */
export interface DeviceGrant {
  readonly index: number;
  readonly vendor: string;
  readonly sliceMemoryBytes?: number;
}

/** The scheduling policies a domain may name (derived from the plugin registry's scorers). */
export type { PolicyName } from './plugins/registry';

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

/** A constraint on one node label; `regex` is RE2 syntax (linear-time) and anchored (the whole value must match). */
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
  /** When given, only these nodes may run it. */
  readonly nodes?: readonly string[];
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
  /** Accelerator devices wanted, beyond a bare count. */
  readonly devices?: DeviceRequest;
  /** The runtime the workload needs (absent: `process`, which every agent offers). */
  readonly runtime?: string;
  /** A model's framework, which the node must serve with that runtime (absent: not a model). */
  readonly modelFramework?: string;
  /**
   * Feasible candidates a scope looks for before it stops filtering (a seeded sample, see `sampleLimitOf`);
   * absent: DEFAULT_SAMPLE_LIMIT; 0: every candidate of every scope.
   */
  readonly sampleLimit?: number;
}

/** Feasible candidates per scope by default: bounds the work of one decision whatever the fleet's size. */
export const DEFAULT_SAMPLE_LIMIT = 64;

/** Constraints that constrain nothing. */
export const NO_CONSTRAINTS: Constraints = Object.freeze({
  labels: [],
  domains: { affinity: [], antiAffinity: [] },
  regions: { affinity: [], antiAffinity: [] },
  nodeBlacklist: [],
  preferDomains: [],
  preferRegions: [],
});
