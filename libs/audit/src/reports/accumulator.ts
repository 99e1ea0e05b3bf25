import {
  CompactDecision,
  EventDataOf,
  ExpandedHop,
  RecordedEventOf,
  RecordedHcnEvent,
  ResourceAmounts,
  WorkloadSpec,
  computeUnits,
  expandDecision,
  formatPosition,
  isEventOfTypes,
  sitePlace,
} from '@hcn/contracts';
import { QuotaEvent, QuotaState, quotaDecider, quotaUsed } from '@hcn/domain';
import { NODE_BLACKLISTED } from '@hcn/scheduling';
import { overLimits } from '../time-travel/time-travel';
import { Availability } from './availability';
import { Period, hoursWithin, inPeriod } from './period';
import type { DelegationRow, QuotaRow, ResidencyViolationRow } from './report.model';
import { RegionTree } from './region-tree';
import { SiteRegions } from './site-regions';

/** Every event type a compliance report reads (heartbeats and reservations are not needed). */
export const REPORT_EVENT_TYPES: readonly string[] = [
  'NodeRegistered',
  'NodeReregistered',
  'NodeWentOffline',
  'NodeCameOnline',
  'NodeDeregistered',
  'DomainDefined',
  'DomainUpdated',
  'Quota',
  'AdmissionDenied',
  'WorkloadSubmitted',
  'WorkloadUpdated',
  'WorkloadDelegated',
  'DelegationRejected',
  'AllocationPlaced',
  'AllocationDelegated',
  'SiteRegistered',
  'WorkloadUnschedulable',
  'AllocationStarted',
  'AllocationCompleted',
  'AllocationFailed',
  'AllocationLost',
  'AllocationStopped',
];

const GIB = 2 ** 30;

/** Per-device figures of a node used to weigh accelerator-hours. */
interface NodeWeights {
  readonly memoryGiB: number;
  readonly computeUnits: number;
}

interface OpenAllocation {
  readonly namespace: string;
  readonly nodeId: string;
  readonly resources: ResourceAmounts;
  startMs: number | null;
}

/** Summed resource-hours of one namespace. */
export interface UsageSums {
  allocations: Set<string>;
  cpuCoreHours: number;
  memoryGiBHours: number;
  acceleratorHours: number;
  acceleratorMemoryGiBHours: number;
  computeUnitHours: number;
  /** Allocations whose node measured what they used (their ends carry it). */
  measuredAllocations: number;
  /** Measured CPU time in core-hours, the share of each measured allocation's life within the period. */
  measuredCpuCoreHours: number;
  /** The highest memory peak of one measured allocation, in GiB. */
  peakMemoryGiB: number;
}

const time = (iso: string): number => Date.parse(iso);

/**
 * Folds the log (in order) into the figures of a compliance report for one period. Streaming: it keeps what
 * is open (allocations, node states, specs), never the events. `finish` closes open intervals at the horizon
 * (the earlier of the period's end and the last event read), so the same log and period give the same figures.
 */
export class ReportAccumulator {
  readonly tree = new RegionTree();
  readonly availability = new Availability();
  /** Regions of the sites work is delegated to. */
  readonly sites = new SiteRegions();
  readonly usage = new Map<string, UsageSums>();
  /** `namespace\u0000region\u0000domain` -> placements. */
  readonly placements = new Map<string, number>();
  readonly residency: ResidencyViolationRow[] = [];
  readonly quota: QuotaRow[] = [];
  /** `namespace\u0000kind\u0000from\u0000to` -> count. */
  readonly delegations = new Map<string, number>();
  /** `namespace\u0000node` -> hits. */
  readonly blacklist = new Map<string, number>();
  private readonly weights = new Map<string, NodeWeights>();
  private readonly specs = new Map<string, WorkloadSpec>();
  private readonly open = new Map<string, OpenAllocation>();
  private readonly quotas = new Map<string, { state: QuotaState; breached: boolean }>();
  private lastMs = Number.NEGATIVE_INFINITY;
  private lastPosition: string | null = null;
  private lastAt: string | null = null;
  private count = 0;
  private pendingHops: Array<Pick<ExpandedHop, 'fromScope' | 'to' | 'toKind' | 'candidates'>> = [];
  private pendingRejections: string[] = [];

  constructor(readonly period: Period) {
    this.availability.within(period);
  }

  /** Applies one event of the log. */
  apply(event: RecordedHcnEvent): void {
    this.count++;
    const at = time(event.metadata.occurredAt);
    if (at > this.lastMs) {
      this.lastMs = at;
      this.lastAt = event.metadata.occurredAt;
    }
    this.lastPosition = formatPosition(event.position);
    if (isEventOfTypes(event, quotaDecider.eventTypes)) return this.onQuota(event, at);
    this.dispatch(event, at);
  }

  private dispatch(event: RecordedHcnEvent, at: number): void {
    switch (event.type) {
      case 'NodeRegistered':
      case 'NodeReregistered':
        return this.onRegistered(event.data, at);
      case 'NodeWentOffline':
      case 'NodeCameOnline':
      case 'NodeDeregistered':
        return this.availability.apply(event.type, event.data, at);
      case 'DomainDefined':
      case 'DomainUpdated':
        return this.tree.define(event.data);
      case 'AdmissionDenied':
        return this.onDenied(event.data, event.metadata.occurredAt, at);
      case 'WorkloadSubmitted':
      case 'WorkloadUpdated':
        return this.onSpec(event.data);
      case 'WorkloadDelegated':
        this.pendingHops.push(event.data);
        return;
      case 'DelegationRejected':
        return this.onRejected(event.data, at);
      case 'AllocationPlaced':
        this.onRecorded(event.data.workloadId, event.data.decision, at);
        return this.onPlaced(event.data, event.metadata.occurredAt, at);
      case 'AllocationDelegated':
        this.onRecorded(event.data.workloadId, event.data.decision, at);
        return this.onDelegated(event.data, event.metadata.occurredAt, at);
      case 'SiteRegistered':
        return this.sites.register(event.data);
      case 'WorkloadUnschedulable':
        this.onRecorded(event.data.workloadId, event.data.decision, at);
        return this.closeDecision(event.data.workloadId, null, at);
      case 'AllocationStarted':
        return this.onStarted(event.data);
      case 'AllocationCompleted':
      case 'AllocationFailed':
      case 'AllocationLost':
      case 'AllocationStopped':
        return this.onEnded(event.data);
      default:
        return; // not an event the reports read
    }
  }

  private onRegistered(d: EventDataOf<'NodeRegistered'>, at: number): void {
    const devices = d.devices ?? [];
    const mean = (f: (x: (typeof devices)[number]) => number) =>
      devices.length ? devices.reduce((s, x) => s + f(x), 0) / devices.length : 0;
    this.weights.set(d.nodeId, {
      memoryGiB: mean((x) => (x.memoryBytes ?? 0) / GIB),
      computeUnits: mean((x) => computeUnits(x) ?? 0),
    });
    this.availability.register(d.nodeId, d.domainId, at);
  }

  private onSpec(d: { workloadId: string; spec: WorkloadSpec }): void {
    this.specs.set(d.workloadId, d.spec);
  }

  private onDenied(d: EventDataOf<'AdmissionDenied'>, iso: string, at: number): void {
    if (!inPeriod(this.period, at)) return;
    const detail = d.over.join('; ');
    this.quota.push({ at: iso, namespace: d.namespace, kind: 'denial', workload: d.workloadName, detail });
  }

  private onQuota(event: RecordedEventOf<QuotaEvent['type']>, at: number): void {
    const ns = event.data.namespace;
    const current = this.quotas.get(ns) ?? { state: quotaDecider.initialState, breached: false };
    const state = quotaDecider.evolve(current.state, event);
    const over = overLimits(state.limits, quotaUsed(state));
    const breached = over.length > 0;
    if (breached && !current.breached && inPeriod(this.period, at)) {
      const workload = 'workloadId' in event.data ? event.data.workloadId : '';
      const at = event.metadata.occurredAt;
      this.quota.push({ at, namespace: ns, kind: 'breach', workload, detail: over.join('; ') });
    }
    this.quotas.set(ns, { state, breached });
  }

  private namespaceOf(workloadId: string): string {
    return this.specs.get(workloadId)?.namespace ?? 'unknown';
  }

  /** The hops and rejections a decision recorded inside its outcome event, taken as the older events were. */
  private onRecorded(workloadId: string, decision: CompactDecision | undefined, at: number): void {
    if (!decision) return;
    const { hops, rejections } = expandDecision(decision);
    this.pendingHops.push(...hops);
    for (const { scope, candidates } of rejections) this.onRejected({ workloadId, scope, candidates }, at);
  }

  private onRejected(
    d: Pick<EventDataOf<'DelegationRejected'>, 'workloadId' | 'scope' | 'candidates'>,
    at: number,
  ): void {
    this.pendingRejections.push(d.scope);
    if (inPeriod(this.period, at)) this.countBlacklist(d.workloadId, d.candidates);
  }

  private countBlacklist(
    workloadId: string,
    candidates: ReadonlyArray<{ id: string; reason?: string }>,
  ): void {
    for (const c of candidates) {
      if (c.reason !== NODE_BLACKLISTED) continue;
      const key = `${this.namespaceOf(workloadId)}\u0000${c.id}`;
      this.blacklist.set(key, (this.blacklist.get(key) ?? 0) + 1);
    }
  }

  /** Counts the hops and fallbacks of the decision that this placement (or verdict) closes. */
  private closeDecision(workloadId: string, finalDomain: string | null, at: number): void {
    const hops = this.pendingHops;
    const rejected = this.pendingRejections;
    this.pendingHops = [];
    this.pendingRejections = [];
    if (!inPeriod(this.period, at)) return;
    const ns = this.namespaceOf(workloadId);
    const bump = (kind: DelegationRow['kind'], from: string, to: string) => {
      const key = `${ns}\u0000${kind}\u0000${from}\u0000${to}`;
      this.delegations.set(key, (this.delegations.get(key) ?? 0) + 1);
    };
    for (const hop of hops) {
      this.countBlacklist(workloadId, hop.candidates);
      if (hop.toKind === 'domain') bump('hop', hop.fromScope ?? '(root)', hop.to);
    }
    if (finalDomain) for (const scope of rejected) bump('fallback', scope, finalDomain);
  }

  private onPlaced(d: EventDataOf<'AllocationPlaced'>, iso: string, at: number): void {
    const region = this.tree.regionOf(d.domainId) ?? '(none)';
    const spec = this.specs.get(d.workloadId);
    const { affinity, antiAffinity } = spec?.constraints.regions ?? { affinity: [], antiAffinity: [] };
    const outside = (affinity.length > 0 && !affinity.includes(region)) || antiAffinity.includes(region);
    this.countPlacement(d, d.domainId, iso, at, { region, outside });
  }

  /** Work handed to another site: placed at `site:<id>`, in that site's regions. */
  private onDelegated(d: EventDataOf<'AllocationDelegated'>, iso: string, at: number): void {
    const spec = this.specs.get(d.workloadId);
    const { affinity, antiAffinity } = spec?.constraints.regions ?? { affinity: [], antiAffinity: [] };
    const region = this.sites.label(d.siteId);
    const outside = this.sites.violates(d.siteId, affinity, antiAffinity);
    this.countPlacement({ ...d, nodeId: sitePlace(d.siteId) }, sitePlace(d.siteId), iso, at, {
      region,
      outside,
    });
  }

  /** Closes the decision, opens the allocation, counts the placement in its region and checks residency. */
  private countPlacement(
    d: { workloadId: string; allocationId: string; nodeId: string; resources: ResourceAmounts },
    domainId: string,
    iso: string,
    at: number,
    where: { region: string; outside: boolean },
  ): void {
    this.closeDecision(d.workloadId, domainId, at);
    const namespace = this.namespaceOf(d.workloadId);
    this.open.set(d.allocationId, { namespace, nodeId: d.nodeId, resources: d.resources, startMs: null });
    if (!inPeriod(this.period, at)) return;
    const key = `${namespace}\u0000${where.region}\u0000${domainId}`;
    this.placements.set(key, (this.placements.get(key) ?? 0) + 1);
    const spec = this.specs.get(d.workloadId);
    if (!spec || !where.outside) return;
    const { affinity, antiAffinity } = spec.constraints.regions;
    this.residency.push({
      at: iso,
      namespace: spec.namespace,
      workloadId: d.workloadId,
      workloadName: spec.name,
      allowedRegions: affinity.join(' '),
      forbiddenRegions: antiAffinity.join(' '),
      allocationId: d.allocationId,
      nodeId: d.nodeId,
      domainId,
      region: where.region,
    });
  }

  private onStarted(d: EventDataOf<'AllocationStarted'>): void {
    const open = this.open.get(d.allocationId);
    if (open && open.startMs === null) open.startMs = time(d.startedAt);
  }

  private onEnded(d: {
    allocationId: string;
    endedAt?: string;
    lostAt?: string;
    usage?: { cpuSeconds: number; memoryPeakBytes: number };
  }): void {
    const end = d.endedAt ?? d.lostAt;
    const open = this.open.get(d.allocationId);
    if (!open || end === undefined) return;
    this.open.delete(d.allocationId);
    if (open.startMs === null) return;
    this.addUsage(d.allocationId, open, open.startMs, time(end));
    if (d.usage) this.addMeasured(open, open.startMs, time(end), d.usage);
  }

  /** Adds an allocation's measured usage, its CPU time apportioned to the part of its life within the period. */
  private addMeasured(
    a: OpenAllocation,
    startMs: number,
    endMs: number,
    usage: { cpuSeconds: number; memoryPeakBytes: number },
  ): void {
    const hours = hoursWithin(this.period, startMs, endMs);
    if (hours <= 0) return;
    const lifeHours = Math.max(hours, (endMs - startMs) / 3_600_000);
    const sums = this.usage.get(a.namespace) ?? emptySums();
    sums.measuredAllocations += 1;
    sums.measuredCpuCoreHours += (usage.cpuSeconds / 3600) * (hours / lifeHours);
    sums.peakMemoryGiB = Math.max(sums.peakMemoryGiB, usage.memoryPeakBytes / GIB);
    this.usage.set(a.namespace, sums);
  }

  private addUsage(allocationId: string, a: OpenAllocation, startMs: number, endMs: number): void {
    const hours = hoursWithin(this.period, startMs, endMs);
    if (hours <= 0) return;
    const sums = this.usage.get(a.namespace) ?? emptySums();
    const w = this.weights.get(a.nodeId) ?? { memoryGiB: 0, computeUnits: 0 };
    sums.allocations.add(allocationId);
    sums.cpuCoreHours += (a.resources.cpuMillis / 1000) * hours;
    sums.memoryGiBHours += (a.resources.memoryBytes / GIB) * hours;
    sums.acceleratorHours += a.resources.accelerators * hours;
    sums.acceleratorMemoryGiBHours += a.resources.accelerators * w.memoryGiB * hours;
    sums.computeUnitHours += a.resources.accelerators * w.computeUnits * hours;
    this.usage.set(a.namespace, sums);
  }

  /** Closes what is still open at the horizon; call once after the last event. */
  finish(): { horizonMs: number; position: string | null; at: string | null; events: number } {
    const horizonMs = Math.min(
      this.period.toMs,
      Number.isFinite(this.lastMs) ? this.lastMs : this.period.fromMs,
    );
    for (const [id, open] of this.open) {
      if (open.startMs !== null) this.addUsage(id, open, open.startMs, horizonMs);
    }
    this.open.clear();
    this.availability.close(horizonMs);
    return { horizonMs, position: this.lastPosition, at: this.lastAt, events: this.count };
  }
}

function emptySums(): UsageSums {
  return {
    allocations: new Set(),
    cpuCoreHours: 0,
    memoryGiBHours: 0,
    acceleratorHours: 0,
    acceleratorMemoryGiBHours: 0,
    computeUnitHours: 0,
    measuredAllocations: 0,
    measuredCpuCoreHours: 0,
    peakMemoryGiB: 0,
  };
}
