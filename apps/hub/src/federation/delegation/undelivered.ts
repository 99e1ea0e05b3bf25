/**
 * Orders that could not be delivered yet, kept by key (a newer order under a key replaces the older) and tried again
 * in rounds until delivered; at most `limit` kept (beyond it a new key is dropped and counted). In memory: what is
 * lost with the process is left to the other side's own reconciliation.
 */
export class Undelivered<T> {
  private readonly orders = new Map<string, T>();
  private round: Promise<void> | undefined;
  /** Orders dropped because the queue was full. */
  dropped = 0;

  constructor(
    private readonly deliver: (order: T) => Promise<void>,
    private readonly limit = 10_000,
  ) {}

  /** Keeps an order to try again. */
  add(key: string, order: T): void {
    if (!this.orders.has(key) && this.orders.size >= this.limit) {
      this.dropped += 1;
      return;
    }
    this.orders.set(key, order);
  }

  /** Orders waiting. */
  get size(): number {
    return this.orders.size;
  }

  /** One round: each waiting order tried once, those delivered forgotten (a round in progress is joined). */
  retry(): Promise<void> {
    this.round ??= this.tryAll().finally(() => (this.round = undefined));
    return this.round;
  }

  private async tryAll(): Promise<void> {
    for (const [key, order] of [...this.orders]) {
      try {
        await this.deliver(order);
        if (this.orders.get(key) === order) this.orders.delete(key);
      } catch {
        // still undelivered: the next round tries again
      }
    }
  }
}
