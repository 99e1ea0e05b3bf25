import { Position, RecordedHcnEvent, comparePositions } from '@hcn/contracts';
import type { EventFilter, EventStore, Subscription } from '@hcn/eventstore';

/** Progress of a long read: events read so far and, when the store can tell, about how many the log holds. */
export interface ScanProgress {
  readonly read: number;
  readonly total?: number;
  readonly done: boolean;
}

/** Rows per page of a bulk scan (the live default is 1,000: a page per round trip dominated the read). */
const SCAN_PAGE_ROWS = 10_000;

/** Options of a scan of `$all`. */
export interface ScanOptions {
  readonly filter?: EventFilter;
  /** Exclusive start position; default: the start of the log. */
  readonly after?: Position;
  /**
   * Inclusive end: the scan ends once the log is read past it, without waiting for transactions still running (an
   * upper bound that was committed long ago needs no wait). Default: everything committed when the scan began.
   */
  readonly until?: Position;
  /** Progress is reported every this many events (default 5000) and once at the end. */
  readonly progressEvery?: number;
  readonly onProgress?: (progress: ScanProgress) => void;
  /** Rows per page of the read; default 10,000. */
  readonly pageSize?: number;
}

/**
 * Reads `$all` from the start (or after `options.after`) through the EventStore port and hands each matching event
 * to `onEvent` in log order, up to everything committed when the scan began (or `options.until`); stops early when
 * `onEvent` returns false. Uses a catch-up subscription (server-side filter, paging below the transaction horizon):
 * a bulk read then waits for in-flight transactions once, not once per page as repeated `readAll` calls would.
 * Returns the events handed over.
 */
export async function scanLog(
  store: EventStore,
  onEvent: (event: RecordedHcnEvent) => boolean | void,
  options: ScanOptions = {},
): Promise<number> {
  const total = options.onProgress ? await store.approximateEventCount?.() : undefined;
  const every = options.progressEvery ?? 5000;
  let read = 0;
  let finished = false;
  let subscription: Subscription | undefined;
  const until = options.until;
  return new Promise<number>((resolve, reject) => {
    const finish = (error?: Error) => {
      if (finished) return;
      finished = true;
      options.onProgress?.({ read, total, done: true });
      const stop = subscription?.stop() ?? Promise.resolve();
      void stop.then(() => (error ? reject(error) : resolve(read)), reject);
    };
    subscription = store.subscribeToAll({
      after: options.after,
      filter: options.filter,
      onEvent: (event) => {
        if (finished) return;
        if (until && comparePositions(event.position, until) > 0) return finish();
        read++;
        if (onEvent(event) === false) return finish();
        if (read % every === 0) options.onProgress?.({ read, total, done: false });
      },
      onCheckpoint: (position) => {
        if (until && comparePositions(position, until) >= 0) finish();
      },
      onCaughtUp: () => finish(),
      onError: (error) => finish(error),
      pageSize: options.pageSize ?? SCAN_PAGE_ROWS,
    });
  });
}
