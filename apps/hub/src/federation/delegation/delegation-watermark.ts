import type { Position } from '@hcn/contracts';

/** One delegation being asked: where its event is in the log, and whether it is answered. */
interface Mark {
  readonly position: Position;
  done: boolean;
}

/**
 * The checkpoint of a sender that works on several events at once: the log position before which every event it
 * took has been dealt with. Events settle in any order; the watermark moves past an event only once every earlier
 * one settled, and to a page's checkpoint only when nothing is in flight. Restarting from it repeats at most the
 * events still in flight (the site is idempotent on the delegation id; an answered one is skipped).
 */
export class DelegationWatermark {
  private readonly marks: Mark[] = [];
  private safePosition: Position | undefined;

  /** An event taken at `position` (in log order). */
  begin(position: Position): Mark {
    const mark = { position, done: false };
    this.marks.push(mark);
    return mark;
  }

  /** That event was dealt with. */
  settle(mark: Mark): void {
    mark.done = true;
    while (this.marks.length > 0 && this.marks[0].done) this.safePosition = this.marks.shift()!.position;
  }

  /** The log passed `position` (a page's checkpoint): safe once nothing before it is in flight. */
  passed(position: Position): void {
    if (this.marks.length === 0) this.safePosition = position;
  }

  /** Where a restart may go on from (undefined: nothing yet). */
  safe(): Position | undefined {
    return this.safePosition;
  }
}
