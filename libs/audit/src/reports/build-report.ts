import type { RecordedHcnEvent } from '@hcn/contracts';
import { ReportAccumulator } from './accumulator';
import type { Period } from './period';
import type {
  AvailabilityRow,
  BlacklistRow,
  ComplianceReport,
  DelegationRow,
  PlacementRow,
  UsageRow,
} from './report.model';

/** Namespaces a report may show: all, or a token's own. */
export type Visible = '*' | readonly string[];

const round = (x: number): number => Math.round(x * 10_000) / 10_000;
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sees(visible: Visible, namespace: string): boolean {
  return visible === '*' || visible.includes(namespace);
}

/** Sums `namespace\u0000...` keyed counters over the visible namespaces, keyed by the rest of the key. */
function fold(map: ReadonlyMap<string, number>, visible: Visible): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, n] of map) {
    const cut = key.indexOf('\u0000');
    if (!sees(visible, key.slice(0, cut))) continue;
    const rest = key.slice(cut + 1);
    out.set(rest, (out.get(rest) ?? 0) + n);
  }
  return out;
}

function usageRows(acc: ReportAccumulator, visible: Visible): UsageRow[] {
  return [...acc.usage]
    .filter(([ns]) => sees(visible, ns))
    .sort(([a], [b]) => cmp(a, b))
    .map(([namespace, s]) => ({
      namespace,
      allocations: s.allocations.size,
      cpuCoreHours: round(s.cpuCoreHours),
      memoryGiBHours: round(s.memoryGiBHours),
      acceleratorHours: round(s.acceleratorHours),
      acceleratorMemoryGiBHours: round(s.acceleratorMemoryGiBHours),
      computeUnitHours: round(s.computeUnitHours),
      measuredAllocations: s.measuredAllocations,
      measuredCpuCoreHours: round(s.measuredCpuCoreHours),
      peakMemoryGiB: round(s.peakMemoryGiB),
    }));
}

function placementRows(acc: ReportAccumulator, visible: Visible): PlacementRow[] {
  return [...fold(acc.placements, visible)]
    .map(([key, placements]) => {
      const [region, domainId] = key.split('\u0000');
      return { region, domainId, placements };
    })
    .sort((a, b) => cmp(a.region, b.region) || cmp(a.domainId, b.domainId));
}

function delegationRows(acc: ReportAccumulator, visible: Visible): DelegationRow[] {
  return [...fold(acc.delegations, visible)]
    .map(([key, count]) => {
      const [kind, from, to] = key.split('\u0000');
      return { kind: kind as DelegationRow['kind'], from, to, count };
    })
    .sort((a, b) => cmp(a.kind, b.kind) || cmp(a.from, b.from) || cmp(a.to, b.to));
}

function blacklistRows(acc: ReportAccumulator, visible: Visible): BlacklistRow[] {
  return [...acc.blacklist]
    .map(([key, hits]) => {
      const [namespace, nodeId] = key.split('\u0000');
      return { namespace, nodeId, hits };
    })
    .filter((r) => sees(visible, r.namespace))
    .sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.nodeId, b.nodeId));
}

function availabilityRows(acc: ReportAccumulator): AvailabilityRow[] {
  return [...acc.availability.perDomain()]
    .sort(([a], [b]) => cmp(a, b))
    .map(([domainId, t]) => ({
      domainId,
      nodes: t.nodes,
      trackedHours: round(t.trackedHours),
      onlineHours: round(t.onlineHours),
      uptimePercent: t.trackedHours > 0 ? round((100 * t.onlineHours) / t.trackedHours) : 0,
    }));
}

/** Turns a finished accumulator into the report rows the visible namespaces may see, sorted and rounded. */
export function buildReport(acc: ReportAccumulator, visible: Visible): ComplianceReport {
  const head = acc.finish();
  const visibleRows = <T extends { namespace: string }>(rows: readonly T[]) =>
    rows.filter((r) => sees(visible, r.namespace));
  return {
    period: { from: new Date(acc.period.fromMs).toISOString(), to: new Date(acc.period.toMs).toISOString() },
    asOf: { position: head.position, at: head.at, events: head.events },
    usage: usageRows(acc, visible),
    placements: placementRows(acc, visible),
    residencyViolations: visibleRows(acc.residency),
    quota: visibleRows(acc.quota),
    delegations: delegationRows(acc, visible),
    blacklistHits: blacklistRows(acc, visible),
    availability: availabilityRows(acc),
  };
}

/** A report over events already in memory (specs, small logs); the hub and CLI stream the log instead. */
export function complianceReport(
  events: Iterable<RecordedHcnEvent>,
  period: Period,
  visible: Visible,
): ComplianceReport {
  const acc = new ReportAccumulator(period);
  for (const event of events) acc.apply(event);
  return buildReport(acc, visible);
}
