/** A level-triggered wake-up signal: `wait` resolves on the next `notify` or after a timeout. */
export class Wakeup {
  private pending = false;
  private waiters: Array<() => void> = [];

  /** Wakes every waiter; a later `wait` returns at once if nobody was waiting. */
  notify(): void {
    this.pending = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves on the next notification or after `timeoutMs`. */
  wait(timeoutMs: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.pending = false;
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      this.waiters.push(done);
    });
  }
}
