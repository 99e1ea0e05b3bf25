import type { DeviceGrant, PolicyName } from './model';

/** Kinds of candidates at a scope: a child domain or a node directly in the scope. */
export type CandidateKind = 'domain' | 'node';

/** What happened to one candidate at one scope. */
export interface CandidateVerdict {
  readonly id: string;
  readonly kind: CandidateKind;
  /** False when a filter rejected it, or when it was tried and its subtree failed. */
  accepted: boolean;
  /** Reason code when not accepted. */
  reason?: string;
  /** Human detail of the reason. */
  detail?: string;
  /** Policy score in [0, 100], for candidates that passed the filters. */
  score?: number;
}

/** One step of the successful chain: at `scope`, `chosen` won. */
export interface Hop {
  /** Domain id, or `null` for the virtual root above the tree's roots. */
  readonly scope: string | null;
  readonly policy: PolicyName;
  readonly chosen: string;
  readonly chosenKind: CandidateKind;
  /** The candidates judged (all members, or a seeded sample of a large scope), in member order. */
  readonly candidates: CandidateVerdict[];
  /** How many members the scope had (more than `candidates` when it was sampled). */
  readonly members: number;
}

/** A scope that was entered and failed (every candidate rejected or failed below). */
export interface ScopeRejection {
  /** Domain id, or `null` for the virtual root above the tree's roots. */
  readonly scope: string | null;
  readonly reason: string;
  readonly detail: string;
  readonly candidates: CandidateVerdict[];
  /** How many members the scope had (a failed scope judged every one). */
  readonly members: number;
}

/** The devices picked on the chosen node, and how each device scorer rated them. */
export interface ChosenDevices {
  readonly vendor: string;
  readonly indexes: readonly number[];
  readonly sliceMemoryBytes?: number;
  readonly grants: readonly DeviceGrant[];
  readonly oneIsland: boolean;
  readonly bandwidthGBps: number;
  readonly computeUnits: number;
  /** Device scorer name → score in [0, 100]. */
  readonly scores: Readonly<Record<string, number>>;
}

/** A placement on a node. */
export interface PlacedDecision {
  readonly outcome: 'placed';
  readonly nodeId: string;
  /** Domains descended through, from the starting scope to the node's domain. */
  readonly domainPath: string[];
  /** The successful chain, root scope first. */
  readonly hops: Hop[];
  /** Every scope entered that failed, in the order they failed (a site before its region). */
  readonly rejections: ScopeRejection[];
  /** The devices picked, when the request asked for devices. */
  readonly devices?: ChosenDevices;
  /** The sample limit the scopes were judged under (absent: every member). */
  readonly sampleLimit?: number;
}

/** No node can take the request; `reasons` counts every reason code met on the way. */
export interface UnschedulableDecision {
  readonly outcome: 'unschedulable';
  readonly hops: Hop[];
  readonly rejections: ScopeRejection[];
  readonly reasons: Record<string, number>;
  /** The sample limit the scopes were judged under (absent: every member). */
  readonly sampleLimit?: number;
}

/** The result of `decide`. */
export type Decision = PlacedDecision | UnschedulableDecision;

/** A scope had candidates but none led to a node. */
export const SCHEDULE_NO_FEASIBLE_NODE = 'SCHEDULE.NO_FEASIBLE_NODE';
/** A scope had neither child domains nor nodes. */
export const SCHEDULE_NO_CANDIDATES = 'SCHEDULE.NO_CANDIDATES';
/** A domain passed the filters, was descended into, and its subtree failed. */
export const SCHEDULE_SUBTREE_FAILED = 'SCHEDULE.SUBTREE_FAILED';
/** `rootDomainId` names no domain of the snapshot. */
export const SCHEDULE_UNKNOWN_ROOT = 'SCHEDULE.UNKNOWN_ROOT';
/** The requested resources are negative or not finite. */
export const SCHEDULE_INVALID_REQUEST = 'SCHEDULE.INVALID_REQUEST';
