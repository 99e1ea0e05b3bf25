import { BoundedMap } from '@hcn/contracts';

/**
 * Work a follower of the log starts early, as the append of its event returns, instead of when the log brings the
 * event back (the dispatcher's run commands, the delegation sender's hand-overs). The log stays the backstop: the
 * follower claims each event it reads; an event started early hands over its work, one the log brought first is
 * remembered so that a late announcement of it starts nothing (it would be done twice).
 */
export class AheadOfLog<T> {
  /** Work started early, by event id, until the log brings the event back. */
  private readonly started = new Map<string, Promise<T>>();
  /** Events the log brought back before they were announced. */
  private readonly readFirst: BoundedMap<true>;

  constructor(
    /** Most early starts awaiting their event at once (beyond it, the log's copy does the work). */
    private readonly limit: number,
    readFirstLimit = limit,
  ) {
    this.readFirst = new BoundedMap(readFirstLimit);
  }

  /** Starts `work` for an event just appended, unless the log brought it first or too many wait; whether it did. */
  start(eventId: string, work: () => Promise<T>): boolean {
    if (this.started.size >= this.limit || this.readFirst.get(eventId)) return false;
    this.started.set(eventId, work());
    return true;
  }

  /**
   * The log brought `eventId` back: the early work for it (handed over and forgotten here), or undefined, and then,
   * when the event is of a kind that is started early (`startable`), it is remembered as read first.
   */
  claim(eventId: string, startable: boolean): Promise<T> | undefined {
    const early = this.started.get(eventId);
    if (early) this.started.delete(eventId);
    else if (startable) this.readFirst.set(eventId, true);
    return early;
  }

  /** The early work not yet claimed (to await on stop). */
  pending(): Array<Promise<T>> {
    return [...this.started.values()];
  }
}
