import type { Position, RecordedEvent } from '@hcn/contracts';
import type { EventStore, Subscription } from '@hcn/eventstore';
import { loadCheckpoint, saveCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { changePayload } from './change-payload';
import { ChangeSet, Projection, emptyChanges, isEmptyChangeSet } from './projection';

/** Channel on which the projector announces committed read-model changes. */
export const READ_MODEL_CHANNEL = 'hcn_read_models';

/** Settings of a projection runner. */
export interface RunnerOptions {
  /** Flush after this many buffered events even before the store's page ends; default 1000. */
  readonly maxBatch?: number;
  readonly onError?: (error: Error) => void;
  /** Wait after a wake-up so one read and one transaction serve many appends; default 100 ms. */
  readonly coalesceMs?: number;
  /** Called after each committed batch (metrics, tests). */
  readonly onBatch?: (info: { events: readonly RecordedEvent[]; position: Position }) => void;
}

/**
 * Runs one projection as a checkpointed catch-up subscription: events are buffered per page of the log, then
 * applied together with the checkpoint in one transaction, followed by a NOTIFY of what changed. On restart it
 * resumes after the stored checkpoint, so every event is applied exactly once.
 */
export class ProjectionRunner {
  private subscription: Subscription | undefined;
  private buffer: RecordedEvent[] = [];
  private caughtUp = false;
  private readonly caughtUpWaiters: Array<() => void> = [];

  constructor(
    private readonly store: EventStore,
    private readonly dataSource: DataSource,
    private readonly projection: Projection,
    private readonly options: RunnerOptions = {},
  ) {}

  /** Starts from the stored checkpoint. */
  async start(): Promise<void> {
    const after = await loadCheckpoint(this.dataSource.manager, this.projection.name);
    this.subscription = this.store.subscribeToAll({
      after,
      filter: this.projection.filter,
      coalesceMs: this.options.coalesceMs ?? 100,
      onEvent: async (event) => {
        this.buffer.push(event);
        if (this.buffer.length >= (this.options.maxBatch ?? 1000)) await this.flush(event.position);
      },
      onCheckpoint: (position) => this.flush(position),
      onCaughtUp: () => {
        this.caughtUp = true;
        this.caughtUpWaiters.splice(0).forEach((wake) => wake());
      },
      onError: (error) => this.options.onError?.(error),
    });
  }

  /** Resolves once the runner has applied everything committed when it started. */
  whenCaughtUp(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = undefined;
  }

  private async flush(position: Position): Promise<void> {
    const events = this.buffer;
    this.buffer = [];
    await applyBatch(this.dataSource, this.projection, events, position);
    this.options.onBatch?.({ events, position });
  }
}

/**
 * Applies one batch of a projection's events with its checkpoint in one transaction, then NOTIFYs what changed
 * (on commit). A batch may be empty: the checkpoint still moves past the filtered-out events.
 */
export async function applyBatch(
  dataSource: DataSource,
  projection: Projection,
  events: readonly RecordedEvent[],
  position: Position,
): Promise<void> {
  const changes: ChangeSet = emptyChanges();
  await dataSource.transaction(async (tx) => {
    if (events.length > 0) await projection.apply(tx, events, changes);
    await saveCheckpoint(tx, projection.name, position, events.length, new Date(), events.at(-1)?.recordedAt);
    if (!isEmptyChangeSet(changes)) {
      const payload = changePayload(projection.name, position, changes);
      await tx.query('SELECT pg_notify($1, $2)', [READ_MODEL_CHANNEL, payload]);
    }
  });
}
