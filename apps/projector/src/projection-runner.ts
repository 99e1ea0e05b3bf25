import { Position, RecordedHcnEvent, comparePositions } from '@hcn/contracts';
import {
  EventStore,
  Subscription,
  SubscriptionHealth,
  matchesFilter,
  superviseSubscription,
} from '@hcn/eventstore';
import { loadCheckpoint, saveCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { changePayload } from './change-payload';
import { ChangeSet, Projection, emptyChanges, isEmptyChangeSet } from './projection';

/** Channel on which the projector announces committed read-model changes. */
export const READ_MODEL_CHANNEL = 'hcn_read_models';

/** A checkpoint that only moves past events a projection does not read is written at most this often. */
const IDLE_CHECKPOINT_MS = 1000;

/** Settings of a projection runner. */
export interface RunnerOptions {
  /** Write after this many buffered events even before the store's page ends; default 1000. */
  readonly maxBatch?: number;
  /** Rows per page of the log read; the store's default when absent. */
  readonly pageSize?: number;
  readonly onError?: (error: Error) => void;
  /** Wait after a wake-up so one read and one transaction serve many appends; default 100 ms. */
  readonly coalesceMs?: number;
  /** Where the runner's subscription reports its state (readiness, metrics); its own when absent. */
  readonly health?: SubscriptionHealth;
  /** First wait before resuming after a failed write (doubles per failure, with jitter); default 200 ms. */
  readonly retryBackoffMs?: number;
  /** Called after each written batch with the events read (metrics, tests). */
  readonly onBatch?: (info: { events: readonly RecordedHcnEvent[]; position: Position }) => void;
  /** Called after each projection's committed write (metrics): its events, and the write's time in seconds. */
  readonly onApplied?: (projection: string, events: readonly RecordedHcnEvent[], seconds: number) => void;
}

/** One projection as the runner tracks it: where its stored checkpoint is and when it was last written. */
interface Tracked {
  readonly projection: Projection;
  checkpoint: Position | undefined;
  writtenAt: number;
}

/**
 * Runs projections over one checkpointed catch-up subscription of `$all`: the log is read once, from the oldest
 * of their checkpoints, and each batch goes to every projection whose filter it matches and whose checkpoint it
 * passes; each projection writes its rows and its checkpoint in one transaction, then NOTIFYs what changed. The
 * projections of a batch are written in parallel and the next batch is read while the last one is written (one
 * in flight). On restart each resumes after its stored checkpoint, so every event is applied exactly once.
 */
export class ProjectionRunner {
  private subscription: Subscription | undefined;
  private tracked: Tracked[] = [];
  private buffer: RecordedHcnEvent[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private caughtUp = false;
  private readonly caughtUpWaiters: Array<() => void> = [];

  constructor(
    private readonly store: EventStore,
    private readonly dataSource: DataSource,
    private readonly projections: readonly Projection[],
    private readonly options: RunnerOptions = {},
  ) {}

  /** Starts from the stored checkpoints. */
  async start(): Promise<void> {
    this.tracked = await Promise.all(
      this.projections.map(async (projection) => ({
        projection,
        checkpoint: await loadCheckpoint(this.dataSource.manager, projection.name),
        writtenAt: 0,
      })),
    );
    this.subscription = superviseSubscription(
      this.store,
      {
        after: oldest(this.tracked.map((t) => t.checkpoint)),
        coalesceMs: this.options.coalesceMs ?? 100,
        pageSize: this.options.pageSize,
        onEvent: async (event) => {
          this.buffer.push(event);
          if (this.buffer.length >= (this.options.maxBatch ?? 1000)) await this.flush(event.position);
        },
        onCheckpoint: (position) => this.flush(position),
        onCaughtUp: () => void this.settled().then(() => this.markCaughtUp(), this.options.onError),
        onError: (error) => this.options.onError?.(error),
      },
      {
        name: 'projector',
        health: this.options.health ?? new SubscriptionHealth(),
        initialBackoffMs: this.options.retryBackoffMs,
        // a write fails for the batch, not for one event: nothing is parked, the batch is written again
        isPoison: () => false,
        resumeAfter: () => this.restartFromCheckpoints(),
      },
    );
  }

  /** Resolves once everything committed when the runner started is applied and written. */
  whenCaughtUp(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpWaiters.push(resolve));
  }

  /** Stops reading and waits for the batch being written. */
  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = undefined;
    await this.writing;
  }

  /** After a failed write: what was buffered is dropped and each projection goes on from its own checkpoint. */
  private restartFromCheckpoints(): Position | undefined {
    this.buffer = [];
    this.failure = undefined;
    this.writing = Promise.resolve();
    return oldest(this.tracked.map((t) => t.checkpoint));
  }

  private markCaughtUp(): void {
    this.caughtUp = true;
    this.caughtUpWaiters.splice(0).forEach((wake) => wake());
  }

  /** Starts writing what is buffered, up to `position`, once the batch before it is written. */
  private async flush(position: Position): Promise<void> {
    await this.settled();
    const events = this.buffer;
    this.buffer = [];
    const writes = this.tracked.map((t) => this.write(t, events, position));
    this.writing = Promise.all(writes).then(
      () => this.options.onBatch?.({ events, position }),
      (error: Error) => void (this.failure = error),
    );
  }

  private async settled(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
  }

  /** Writes one projection's share of a batch; a checkpoint that moves past nothing it reads waits a while. */
  private async write(
    tracked: Tracked,
    events: readonly RecordedHcnEvent[],
    position: Position,
  ): Promise<void> {
    const from = tracked.checkpoint;
    if (from && comparePositions(position, from) <= 0) return;
    const mine = events.filter(
      (e) =>
        matchesFilter(tracked.projection.filter, e.type, e.streamId) &&
        (!from || comparePositions(e.position, from) > 0),
    );
    const now = Date.now();
    if (mine.length === 0 && from && now - tracked.writtenAt < IDLE_CHECKPOINT_MS) return;
    const started = performance.now();
    const kept = await applyBatch(this.dataSource, tracked.projection, mine, position);
    this.options.onApplied?.(tracked.projection.name, mine, (performance.now() - started) / 1000);
    tracked.checkpoint = kept;
    tracked.writtenAt = now;
  }
}

/** The oldest of some checkpoints; undefined (the start of the log) when any projection has none. */
function oldest(checkpoints: ReadonlyArray<Position | undefined>): Position | undefined {
  let first: Position | undefined;
  for (const checkpoint of checkpoints) {
    if (!checkpoint) return undefined;
    if (!first || comparePositions(checkpoint, first) < 0) first = checkpoint;
  }
  return first;
}

/**
 * Applies one batch of a projection's events with its checkpoint in one transaction, then NOTIFYs what changed
 * (on commit). A batch may be empty: the checkpoint still moves past the filtered-out events. Returns the checkpoint
 * written (the batch's end unless the projection keeps it back: Projection.checkpointAt).
 */
export async function applyBatch(
  dataSource: DataSource,
  projection: Projection,
  events: readonly RecordedHcnEvent[],
  position: Position,
): Promise<Position> {
  const changes: ChangeSet = emptyChanges();
  let kept = position;
  await dataSource.transaction(async (tx) => {
    if (events.length > 0) await projection.apply(tx, events, changes);
    kept = projection.checkpointAt?.(position) ?? position;
    await saveCheckpoint(tx, projection.name, kept, events.length, new Date(), events.at(-1)?.recordedAt);
    if (!isEmptyChangeSet(changes)) {
      const payload = changePayload(projection.name, position, changes);
      await tx.query('SELECT pg_notify($1, $2)', [READ_MODEL_CHANNEL, payload]);
    }
  });
  return kept;
}
