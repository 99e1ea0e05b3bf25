import type { EventBody, RecordedEvent } from '@hcn/contracts';
import { type Folder, evolveRecorded } from '@hcn/domain';
import type { EventRef } from '../chain/chain.model';
import { eventRef } from '../chain/event-ref';

/** Common part of every "as of" answer. */
export interface AsOf {
  readonly at: string;
  /** Events of the stream folded (those that happened by `at`). */
  readonly eventsApplied: number;
  readonly eventsTotal: number;
  readonly lastEvent: EventRef | null;
}

/**
 * One stream folded with a decider's evolve, event by event in stream order, up to the first event that happened
 * after an instant (occurredAt > at): the part of the stream that had happened by then.
 */
export class StreamAt<S, E extends EventBody> {
  /** The state folded so far. */
  state: S;
  private applied = 0;
  private total = 0;
  private last: RecordedEvent | undefined;
  private past = false;

  constructor(
    private readonly decider: Folder<E, S>,
    /** The instant, in epoch milliseconds. */
    readonly atMs: number,
  ) {
    this.state = decider.initialState;
  }

  /** Folds the stream's next event, unless an earlier one already happened after the instant. */
  accept(event: RecordedEvent): void {
    this.total++;
    if (this.past || Date.parse(event.metadata.occurredAt) > this.atMs) {
      this.past = true;
      return;
    }
    this.state = evolveRecorded(this.decider, this.state, event);
    this.applied++;
    this.last = event;
  }

  /** The instant, events applied and total, and the last event applied. */
  asOf(): AsOf {
    return {
      at: new Date(this.atMs).toISOString(),
      eventsApplied: this.applied,
      eventsTotal: this.total,
      lastEvent: this.last ? eventRef(this.last) : null,
    };
  }
}

/** Folds a whole stream up to an instant. */
export function streamAt<S, E extends EventBody>(
  decider: Folder<E, S>,
  events: readonly RecordedEvent[],
  atMs: number,
): StreamAt<S, E> {
  const fold = new StreamAt(decider, atMs);
  for (const event of events) fold.accept(event);
  return fold;
}
