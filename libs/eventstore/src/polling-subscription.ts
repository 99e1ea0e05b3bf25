import { EventBody, HcnEvent, Position, RecordedOf, comparePositions } from '@hcn/contracts';
import type { EventFilter, Subscription, SubscribeToAllOptions } from './port';
import { Wakeup } from '@hcn/contracts';

/** One page of `$all` as a polling subscription sees it. */
export interface Page<E extends EventBody = HcnEvent> {
  readonly events: Array<RecordedOf<E>>;
  /** Everything up to here has been seen (also filtered-out events), or undefined when nothing moved. */
  readonly checkpoint?: Position;
  /** True when the page reached the end of what is committed and readable now. */
  readonly exhausted: boolean;
  /**
   * False while events committed before the subscription started may still be unreadable (PostgreSQL: a
   * transaction older than them is still open); caught-up is reported only once this is not false.
   */
  readonly complete?: boolean;
  /** Committed events are not readable yet (an older transaction is open): poll again soon, not on a wake-up. */
  readonly heldBack?: boolean;
}

/** How a polling subscription reads pages. */
export interface PageSource<E extends EventBody = HcnEvent> {
  readPage(after: Position | undefined, filter: EventFilter | undefined, limit: number): Promise<Page<E>>;
}

/** Settings of a polling subscription. */
export interface PollingSettings {
  readonly pageSize: number;
  /** Longest wait without a wake-up before polling again. */
  readonly pollIntervalMs: number;
  /** Wait before retrying after a read failure. */
  readonly retryDelayMs: number;
  /** Least time between two reads after a wake-up, so bursts of appends are read as one page; default 0. */
  readonly coalesceMs?: number;
}

/** First wait before reading again while committed events are held back; it doubles up to the poll interval. */
const HELD_BACK_FIRST_MS = 20;

/**
 * A catch-up subscription driven by pages: read, deliver in order, checkpoint, then sleep until woken
 * (a hint such as NOTIFY) or until the poll interval passes. Used by the PostgreSQL and in-memory stores.
 */
export class PollingSubscription<E extends EventBody = HcnEvent> implements Subscription {
  private stopped = false;
  private readonly wakeup = new Wakeup();
  private readonly done: Promise<void>;
  private cursor: Position | undefined;

  constructor(
    private readonly source: PageSource<E>,
    private readonly options: SubscribeToAllOptions<E>,
    private readonly settings: PollingSettings,
    private readonly onStopped: (subscription: PollingSubscription<E>) => void,
  ) {
    this.cursor = options.after;
    this.done = this.run();
  }

  /** Hints that new events may be readable (NOTIFY, an in-memory append). */
  wake(): void {
    this.wakeup.notify();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeup.notify();
    await this.done;
  }

  private async run(): Promise<void> {
    let caughtUp = false;
    let ahead: Promise<Page<E> | null> | undefined;
    let lastReadAt = 0;
    let heldBackWait = HELD_BACK_FIRST_MS / 2;
    try {
      while (!this.stopped) {
        if (!ahead) lastReadAt = Date.now();
        const page = await (ahead ?? this.readPageOrNull(this.cursor));
        ahead = undefined;
        if (!page) {
          await this.wakeup.wait(this.settings.retryDelayMs);
          continue;
        }
        // A full page means more is readable now: read the next one while this one is delivered.
        if (!page.exhausted && page.checkpoint) ahead = this.readPageOrNull(page.checkpoint);
        await this.deliver(page);
        if (!page.exhausted || this.stopped) continue;
        if (!caughtUp && page.complete !== false) {
          caughtUp = true;
          this.options.onCaughtUp?.();
        }
        heldBackWait = page.heldBack
          ? Math.min(heldBackWait * 2, this.settings.pollIntervalMs)
          : HELD_BACK_FIRST_MS / 2;
        await this.wakeup.wait(page.heldBack ? heldBackWait : this.settings.pollIntervalMs);
        // At most one read per coalescing window: a wake-up after a quiet spell is read at once, a stream of
        // appends in one read per window.
        const wait = lastReadAt + (this.options.coalesceMs ?? this.settings.coalesceMs ?? 0) - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    } catch (error) {
      this.options.onError?.(error as Error);
    } finally {
      this.stopped = true;
      await ahead; // never rejects; a read still running is not left behind on a closing store
      this.onStopped(this);
    }
  }

  private async readPageOrNull(after: Position | undefined): Promise<Page<E> | null> {
    try {
      return await this.source.readPage(after, this.options.filter, this.settings.pageSize);
    } catch (error) {
      if (!this.stopped) this.options.onError?.(error as Error);
      return null;
    }
  }

  private async deliver(page: Page<E>): Promise<void> {
    const before = this.cursor;
    for (const event of page.events) {
      if (this.stopped) return;
      await this.options.onEvent(event);
      this.cursor = event.position;
    }
    if (this.stopped) return;
    if (page.checkpoint && (!this.cursor || comparePositions(page.checkpoint, this.cursor) > 0)) {
      this.cursor = page.checkpoint;
    }
    const moved = this.cursor && (!before || comparePositions(this.cursor, before) > 0);
    if (moved && this.cursor) await this.options.onCheckpoint?.(this.cursor);
  }
}
