import { inParallel } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { buildChain } from '../chain/build-chain';
import { readWorkload } from '../log/audit-reader';
import { ScanProgress, scanLog } from '../log/scan';
import { siteHopsOf } from './site-hops';
import type { SiteChainSource } from './stitch-chain';
import { sitePartsOf } from './stitch-chain';
import type { StitchedSitePart } from './stitched.model';

/** How many parts a report lists of each kind (it counts all). */
const MAX_LISTED = 100;
/** Sites asked at once. */
const PARALLEL = 4;

/** A part of a workload of this site, as a report lists it: the workload here, and the part without its chain. */
export type ListedSitePart = Omit<StitchedSitePart, 'chain'> & { readonly localWorkloadId: string };

/** verify across sites: every part of every workload of this log that was handed to another site. */
export interface SitesReport {
  readonly ok: boolean;
  /** Workloads of this log with at least one hand-over. */
  readonly workloads: number;
  /** Parts read and checked. */
  readonly partsChecked: number;
  readonly brokenCount: number;
  /** Parts that do not hold (at most MAX_LISTED). */
  readonly broken: readonly ListedSitePart[];
  readonly unavailableCount: number;
  /** Parts that could not be read (at most MAX_LISTED). */
  readonly unavailable: readonly ListedSitePart[];
}

/** The workloads of the log that were handed to another site (one scan of AllocationDelegated). */
async function delegatingWorkloads(
  store: EventStore,
  onProgress?: (p: ScanProgress) => void,
): Promise<string[]> {
  const ids = new Set<string>();
  await scanLog(
    store,
    (event) => void (event.type === 'AllocationDelegated' && ids.add(event.data.workloadId)),
    {
      filter: { kind: 'eventTypePrefix', prefixes: ['AllocationDelegated'] },
      onProgress,
    },
  );
  return [...ids];
}

/**
 * Checks every other site's part of every workload of this log handed to another site (asked through `source`, a
 * few sites at a time): which parts do not hold, which could not be read. `ok` only when all were read and hold.
 */
export async function verifySiteParts(
  store: EventStore,
  siteId: string,
  source: SiteChainSource,
  onProgress?: (p: ScanProgress) => void,
): Promise<SitesReport> {
  const workloads = await delegatingWorkloads(store, onProgress);
  const broken: ListedSitePart[] = [];
  const unavailable: ListedSitePart[] = [];
  let checked = 0;
  let brokenCount = 0;
  let unavailableCount = 0;
  await inParallel(workloads, PARALLEL, async (workloadId) => {
    const events = await readWorkload(store, workloadId);
    const hops = siteHopsOf(events, buildChain(events));
    for (const { chain: _chain, ...part } of await sitePartsOf(hops, { siteId, workloadId }, source)) {
      const listed = { ...part, localWorkloadId: workloadId };
      if (part.unavailable) {
        if (unavailableCount++ < MAX_LISTED) unavailable.push(listed);
        continue;
      }
      checked++;
      if (!part.verification?.ok && brokenCount++ < MAX_LISTED) broken.push(listed);
    }
  });
  const ok = brokenCount === 0 && unavailableCount === 0;
  return {
    ok,
    workloads: workloads.length,
    partsChecked: checked,
    brokenCount,
    broken,
    unavailableCount,
    unavailable,
  };
}
