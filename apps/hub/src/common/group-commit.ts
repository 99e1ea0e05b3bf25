/**
 * Group commit across calls: at most `inFlight` commits run at once, and items handed in meanwhile wait and then
 * go together in the next one (`commitMany` answers one outcome per item, in order).
 */
export class GroupCommit<T, R> {
  private readonly waiting: Array<{ item: T; settle(outcome: R): void; fail(error: unknown): void }> = [];
  private running = 0;

  constructor(
    private readonly commitMany: (items: T[]) => Promise<R[]>,
    private readonly inFlight: number,
  ) {}

  /** Commits `item`, alone or with the others waiting. */
  commit(item: T): Promise<R> {
    return new Promise((settle, fail) => {
      this.waiting.push({ item, settle, fail });
      if (this.running < this.inFlight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running++;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, this.waiting.length);
        try {
          const outcomes = await this.commitMany(group.map((w) => w.item));
          group.forEach((w, i) => w.settle(outcomes[i]));
        } catch (error) {
          group.forEach((w) => w.fail(error));
        }
      }
    } finally {
      this.running--;
    }
  }
}
