import type { EventMetadata } from '@hcn/contracts';

/** An event as this process validated it for an append: its data and metadata in full, as a read gives them. */
export interface ValidatedContent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

/** How long an appended event's validated content is kept for this process's own read of it (one generation). */
const GENERATION_MS = 1000;
/** Most events one generation keeps (a burst of appends rotates it early). */
const GENERATION_SIZE = 20_000;

/**
 * The content of events this process appended in the last second or two, by event id, so that its own reads of
 * them (its followers read back nearly everything it writes, within milliseconds) take the data it validated on
 * write instead of validating the stored form again. A read takes an entry once; entries nobody read are dropped
 * with their generation. Only events whose append stored them are kept (see `keep`); a read of anything else
 * validates as before. Stored forms read back equal to the data they were made from (stored-form spec), which is
 * what makes the two interchangeable.
 */
export class RecentWrites {
  private current = new Map<string, ValidatedContent>();
  private previous = new Map<string, ValidatedContent>();
  private rotatedAt = Date.now();

  constructor(
    private readonly generationMs = GENERATION_MS,
    private readonly generationSize = GENERATION_SIZE,
  ) {}

  /** Keeps the content of events an append just stored. */
  keep(events: ReadonlyArray<{ readonly eventId: string; readonly content: ValidatedContent }>): void {
    this.rotate();
    for (const { eventId, content } of events) this.current.set(eventId, content);
  }

  /** The content kept for `eventId` when it is of `type` (taken: a second read validates again). */
  take(eventId: string, type: string): ValidatedContent | undefined {
    const content = this.current.get(eventId) ?? this.previous.get(eventId);
    if (content === undefined) return undefined;
    this.current.delete(eventId);
    this.previous.delete(eventId);
    return content.type === type ? content : undefined;
  }

  /** How many events are kept (diagnostics and specs). */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  private rotate(): void {
    const now = Date.now();
    if (now - this.rotatedAt < this.generationMs && this.current.size < this.generationSize) return;
    this.previous = this.current;
    this.current = new Map();
    this.rotatedAt = now;
  }
}
