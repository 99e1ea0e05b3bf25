import type { RecordedEvent } from '@hcn/contracts';
import type { EventFilter, EventStore } from '@hcn/eventstore';

/** Progress of a long read: events read so far and, when the store can tell, about how many the log holds. */
export interface ScanProgress {
  readonly read: number;
  readonly total?: number;
  readonly done: boolean;
}

/** Options of a scan of `$all`. */
export interface ScanOptions {
  readonly filter?: EventFilter;
  readonly pageSize?: number;
  readonly onProgress?: (progress: ScanProgress) => void;
}

/**
 * Reads `$all` forwards page by page through the EventStore port and hands each event to `onEvent` in log
 * order; stops early when `onEvent` returns false. Returns the number of events handed over.
 */
export async function scanLog(
  store: EventStore,
  onEvent: (event: RecordedEvent) => boolean | void,
  options: ScanOptions = {},
): Promise<number> {
  const pageSize = options.pageSize ?? 2000;
  const total = options.onProgress ? await store.approximateEventCount?.() : undefined;
  let read = 0;
  let after: RecordedEvent['position'] | undefined;
  for (;;) {
    const page = await store.readAll({ after, maxCount: pageSize, filter: options.filter });
    for (const event of page) {
      read++;
      if (onEvent(event) === false) {
        options.onProgress?.({ read, total, done: true });
        return read;
      }
    }
    options.onProgress?.({ read, total, done: page.length < pageSize });
    if (page.length < pageSize) return read;
    after = page[page.length - 1].position;
  }
}
