import type { Position, RecordedEvent } from '@hcn/contracts';
import { EventStore, Subscription, matchesFilter } from '@hcn/eventstore';
import { resetCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import type { Projection } from './projection';
import { applyBatch } from './projection-runner';

/** Progress of a rebuild. */
export interface RebuildProgress {
  /** Events of the log read and handed to the projections they match. */
  readonly read: number;
  readonly total: number | undefined;
  readonly eventsPerSecond: number;
}

/** Settings of a rebuild. */
export interface RebuildOptions {
  /** Events per batch (one transaction per projection and batch); default 5,000. */
  readonly batchEvents?: number;
  /** Rows per page of the log read; default 5,000. */
  readonly pageSize?: number;
  /** Called every 500 ms and once at the end. */
  readonly onProgress?: (progress: RebuildProgress) => void;
}

/**
 * Drops the projections' tables and replays the log from zero until caught up, reading it once for all of them:
 * each batch goes to every projection whose filter it matches, each projection in its own transaction with its
 * checkpoint (as the live runner writes them), the projections of a batch in parallel, and the next batch is read
 * and decoded while the last one is written.
 */
export async function rebuildProjections(
  store: EventStore,
  dataSource: DataSource,
  projections: readonly Projection[],
  options: RebuildOptions = {},
): Promise<RebuildProgress> {
  await dataSource.transaction(async (tx) => {
    await tx.query(`TRUNCATE ${projections.flatMap((p) => p.tables).join(', ')}`);
    for (const projection of projections) await resetCheckpoint(tx, projection.name);
  });
  const total = await store.approximateEventCount?.();
  const started = Date.now();
  let read = 0;
  const progress = (): RebuildProgress => ({
    read,
    total,
    eventsPerSecond: Math.round(read / Math.max(0.001, (Date.now() - started) / 1000)),
  });
  const timer = setInterval(() => options.onProgress?.(progress()), 500);
  const writer = new BatchWriter(dataSource, projections);
  try {
    await replayOnce(
      store,
      options,
      (event) => {
        read++;
        return writer.add(event, options.batchEvents ?? 5000);
      },
      (position) => writer.flush(position),
    );
    await writer.idle();
  } finally {
    clearInterval(timer);
  }
  const final = progress();
  options.onProgress?.(final);
  return final;
}

/** Replays one projection from zero (see `rebuildProjections`). */
export function rebuildProjection(
  store: EventStore,
  dataSource: DataSource,
  projection: Projection,
  onProgress?: (progress: RebuildProgress) => void,
): Promise<RebuildProgress> {
  return rebuildProjections(store, dataSource, [projection], { onProgress });
}

/** Reads `$all` from the start to what is committed now, handing over each event and each checkpoint in order. */
async function replayOnce(
  store: EventStore,
  options: RebuildOptions,
  onEvent: (event: RecordedEvent) => Promise<void>,
  onCheckpoint: (position: Position) => Promise<void>,
): Promise<void> {
  let subscription: Subscription | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      subscription = store.subscribeToAll({
        onEvent,
        onCheckpoint,
        onCaughtUp: resolve,
        onError: reject,
        pageSize: options.pageSize ?? 5000,
      });
    });
  } finally {
    await subscription?.stop();
  }
}

/**
 * Buffers events and writes them as batches, one in flight at a time, so the log is read while the last batch
 * is written; a failed write fails the next `add`, `flush` or `idle`.
 */
class BatchWriter {
  private buffer: RecordedEvent[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly projections: readonly Projection[],
  ) {}

  async add(event: RecordedEvent, batchEvents: number): Promise<void> {
    this.buffer.push(event);
    if (this.buffer.length >= batchEvents) await this.flush(event.position);
  }

  /** Starts writing what is buffered, up to `position`, once the batch before it is written. */
  async flush(position: Position): Promise<void> {
    await this.settled();
    const events = this.buffer;
    this.buffer = [];
    const writes = this.projections.map((projection) =>
      applyBatch(
        this.dataSource,
        projection,
        events.filter((e) => matchesFilter(projection.filter, e.type, e.streamId)),
        position,
      ),
    );
    this.writing = Promise.all(writes).then(
      () => undefined,
      (error: Error) => void (this.failure = error),
    );
  }

  /** Writes what is still buffered and resolves when everything is written. */
  async idle(): Promise<void> {
    const last = this.buffer.at(-1);
    if (last) await this.flush(last.position);
    await this.settled();
  }

  private async settled(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
  }
}

/** Renders rebuild progress as a one-line bar. */
export function renderProgress(name: string, p: RebuildProgress): string {
  const width = 30;
  if (!p.total) return `[rebuild ${name}] ${p.read} events (${p.eventsPerSecond} ev/s)`;
  const ratio = Math.min(1, p.read / p.total);
  const filled = Math.round(ratio * width);
  return `[rebuild ${name}] [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0)}% ${p.read}/~${p.total} events (${p.eventsPerSecond} ev/s)`;
}
