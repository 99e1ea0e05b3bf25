import type { RecordedEvent } from '@hcn/contracts';
import type { Decider } from '@hcn/domain';
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
export class StreamAt<S, E = unknown> {
  /** The state folded so far. */
  state: S;
  private applied = 0;
  private total = 0;
  private last: RecordedEvent | undefined;
  private past = false;

  constructor(
    private readonly decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
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
    this.state = this.decider.evolve(this.state, { type: event.type, data: event.data } as E);
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
export function streamAt<S, E>(
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
  events: readonly RecordedEvent[],
  atMs: number,
): StreamAt<S, E> {
  const fold = new StreamAt(decider, atMs);
  for (const event of events) fold.accept(event);
  return fold;
}
