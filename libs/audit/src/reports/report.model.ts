/** Resource-hours one namespace used in the period, from allocation intervals (started → ended). */
export interface UsageRow {
  readonly namespace: string;
  readonly allocations: number;
  readonly cpuCoreHours: number;
  readonly memoryGiBHours: number;
  readonly acceleratorHours: number;
  readonly acceleratorMemoryGiBHours: number;
  /** Accelerator-hours weighted by the device model's exchange rate (normalized compute units). */
  readonly computeUnitHours: number;
  /** Allocations whose usage was measured on their node (cgroup or engine). */
  readonly measuredAllocations: number;
  /** Measured CPU time of those allocations in core-hours (beside the reserved `cpuCoreHours`). */
  readonly measuredCpuCoreHours: number;
  /** The highest measured memory peak of one allocation, in GiB (beside the reserved `memoryGiBHours`). */
  readonly peakMemoryGiB: number;
}

/** Placements made in the period in one domain (region resolved through the tree at placement time). */
export interface PlacementRow {
  readonly region: string;
  readonly domainId: string;
  readonly placements: number;
}

/** An allocation of a region-constrained workload placed outside its allowed regions. */
export interface ResidencyViolationRow {
  readonly at: string;
  readonly namespace: string;
  readonly workloadId: string;
  readonly workloadName: string;
  readonly allowedRegions: string;
  readonly forbiddenRegions: string;
  readonly allocationId: string;
  readonly nodeId: string;
  readonly domainId: string;
  readonly region: string;
}

/** A quota denial (admission refused) or breach (usage above limits after a change). */
export interface QuotaRow {
  readonly at: string;
  readonly namespace: string;
  readonly kind: 'denial' | 'breach';
  readonly workload: string;
  readonly detail: string;
}

/** Delegations between domains in the period: hops down the tree and fallbacks to a peer. */
export interface DelegationRow {
  readonly kind: 'hop' | 'fallback';
  readonly from: string;
  readonly to: string;
  readonly count: number;
}

/** Times a blacklisted node was a candidate and was filtered out. */
export interface BlacklistRow {
  readonly namespace: string;
  readonly nodeId: string;
  readonly hits: number;
}

/** Node availability in one domain over the period. */
export interface AvailabilityRow {
  readonly domainId: string;
  readonly nodes: number;
  /** Hours the domain's nodes were registered within the period. */
  readonly trackedHours: number;
  readonly onlineHours: number;
  readonly uptimePercent: number;
}

/** The compliance report of one period. */
export interface ComplianceReport {
  readonly period: { readonly from: string; readonly to: string };
  /** The log as read: its last event's position and time (open intervals end there or at the period end). */
  readonly asOf: { readonly position: string | null; readonly at: string | null; readonly events: number };
  readonly usage: readonly UsageRow[];
  readonly placements: readonly PlacementRow[];
  readonly residencyViolations: readonly ResidencyViolationRow[];
  readonly quota: readonly QuotaRow[];
  readonly delegations: readonly DelegationRow[];
  readonly blacklistHits: readonly BlacklistRow[];
  readonly availability: readonly AvailabilityRow[];
}

/** The sections of a report, in print order. */
export const REPORT_SECTIONS = [
  'usage',
  'placements',
  'residencyViolations',
  'quota',
  'delegations',
  'blacklistHits',
  'availability',
] as const;

/** One section of a report. */
export type ReportSection = (typeof REPORT_SECTIONS)[number];
