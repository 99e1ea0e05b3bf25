import type { SiteSummary } from '@hcn/contracts';

/** Share of the total by which free CPU or memory must move before gossip calls a summary changed. */
export const FREE_TOLERANCE = 0.01;

type Pool = SiteSummary['cpuMillis'];

/** Free capacity moved materially: by more than the tolerance of the total, or to or from none at all. */
function freeMoved(published: Pool, next: Pool): boolean {
  if ((published.free === 0) !== (next.free === 0)) return true;
  return Math.abs(next.free - published.free) > FREE_TOLERANCE * Math.max(published.total, next.total);
}

/** Everything of a summary gossip compares exactly: all but its number, time and free capacity. */
function exactPart(s: SiteSummary): string {
  return JSON.stringify([
    s.domains,
    s.nodes,
    s.cpuMillis.total,
    s.memoryBytes.total,
    s.accelerators,
    s.tags,
    s.regions,
  ]);
}

/**
 * Whether `next` says something a member would act on that `published` (the summary gossip last spread) does not:
 * node counts, totals, accelerators (free ones included), tags or regions differ, or free CPU or memory moved by more
 * than FREE_TOLERANCE of the total (drift adds up, since `published` stays until a change is spread). `seq` and
 * `generatedAt` alone never count.
 */
export function materiallyChanged(published: SiteSummary | null, next: SiteSummary): boolean {
  if (!published) return true;
  return (
    exactPart(published) !== exactPart(next) ||
    freeMoved(published.cpuMillis, next.cpuMillis) ||
    freeMoved(published.memoryBytes, next.memoryBytes)
  );
}
