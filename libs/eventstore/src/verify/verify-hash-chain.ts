import { HcnError, Position } from '@hcn/contracts';
import type { AnyEventStore } from '../port';
import { ChainChecker, Period } from './chain-checker';
import type { HashChainReport, VerifyProgress } from './chain-report';

/** What verifyHashChain checks: one stream or all, and the period of recording (inclusive bounds). */
export interface VerifyHashChainOptions {
  readonly streamId?: string;
  readonly from?: Date;
  readonly to?: Date;
  /** Events read per page; default 1000. */
  readonly pageSize?: number;
}

/**
 * Recomputes every stored event's hash-chain link (content hash, prevHash = previous event's hash, hash) and
 * reports the first broken one. All streams: reads `$all` once, page by page (onProgress after each page),
 * grouping by stream. Events recorded before `from` only anchor their stream's chain; a stream whose first
 * retained event is not its first (retention expired its head) is checked from there, trusting that event's
 * prevHash, and listed in `startedMidStream`; in a stream without retention that is a break. Throws
 * AUDIT.STREAM_NOT_FOUND when `streamId` has no retained event.
 */
export async function verifyHashChain(
  store: AnyEventStore,
  options: VerifyHashChainOptions = {},
  onProgress?: (progress: VerifyProgress) => void,
): Promise<HashChainReport> {
  const checker = new ChainChecker(periodOf(options), retentionLookup(store));
  const approximateTotal = options.streamId ? undefined : await store.approximateEventCount?.();
  let after: Position | undefined;
  let scanned = 0;
  for (;;) {
    const page = await store.readRaw({
      streamId: options.streamId,
      after,
      maxCount: options.pageSize ?? 1000,
    });
    for (const event of page.events) await checker.check(event);
    scanned += page.events.length;
    onProgress?.({ eventsScanned: scanned, eventsChecked: checker.eventsChecked, approximateTotal });
    if (page.exhausted || !page.checkpoint) break;
    after = page.checkpoint;
  }
  if (options.streamId !== undefined && scanned === 0) {
    throw new HcnError('AUDIT.STREAM_NOT_FOUND', `Stream ${options.streamId} has no retained events`, {
      streamId: options.streamId,
    });
  }
  return checker.summary({
    ...(options.streamId !== undefined ? { streamId: options.streamId } : {}),
    ...(options.from ? { from: options.from.toISOString() } : {}),
    ...(options.to ? { to: options.to.toISOString() } : {}),
  });
}

function periodOf(options: VerifyHashChainOptions): Period {
  return { from: options.from, to: options.to };
}

/** Whether a stream has retention metadata, asked once per stream (only for streams that start mid-way). */
function retentionLookup(store: AnyEventStore): (streamId: string) => Promise<boolean> {
  const known = new Map<string, boolean>();
  return async (streamId) => {
    let has = known.get(streamId);
    if (has === undefined) {
      const metadata = await store.getStreamMetadata(streamId);
      has = metadata.maxAge !== undefined || metadata.maxCount !== undefined;
      known.set(streamId, has);
    }
    return has;
  };
}
