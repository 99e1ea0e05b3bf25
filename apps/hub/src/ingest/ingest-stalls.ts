import type { Clock } from '../tokens';

/**
 * When report ingestion last failed for want of its infrastructure (the store or the bus down: the batch stays in
 * its topic and is tried again, within the consumer's longest retry back-off). Judgements that take a missing
 * report as a fact (a node's silence, an allocation's missing start) count time only from when ingestion resumed:
 * the reports sent meanwhile are waiting in the topic, not lost.
 */
export class IngestStalls {
  private lastFailureMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    /** The consumer's longest pause between two attempts at a batch. */
    private readonly retryBackoffCapMs: number,
  ) {}

  /** Notes a batch that failed for want of its infrastructure (it will be tried again). */
  failed(): void {
    this.lastFailureMs = this.clock().getTime();
  }

  /**
   * From when a missing report may count (ms since the epoch): the last failure plus the longest back-off, by when
   * every batch held up has been tried again. In the future while ingestion fails; -Infinity if it never did.
   */
  resumedAt(): number {
    return this.lastFailureMs + this.retryBackoffCapMs;
  }
}
