import type { EventStore } from '@hcn/eventstore';
import { progressBar } from '@hcn/platform';
import { resetCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import type { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';

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
 * Drops the projections' tables and replays the log from zero until caught up, with the projector's own runner:
 * the log is read once for all of them, in large pages and batches, without waiting for more appends.
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
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined); // raced below; a late failure is not unhandled
  const runner = new ProjectionRunner(store, dataSource, projections, {
    maxBatch: options.batchEvents ?? 5000,
    pageSize: options.pageSize ?? 5000,
    coalesceMs: 0,
    onBatch: ({ events }) => (read += events.length),
    onError: (error) => fail(error),
  });
  try {
    await runner.start();
    await Promise.race([runner.whenCaughtUp(), failed]);
  } finally {
    await runner.stop();
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

/** Renders rebuild progress as a one-line bar. */
export function renderProgress(name: string, p: RebuildProgress): string {
  if (!p.total) return `[rebuild ${name}] ${p.read} events (${p.eventsPerSecond} ev/s)`;
  const ratio = Math.min(1, p.read / p.total);
  return `[rebuild ${name}] [${progressBar(ratio)}] ${(ratio * 100).toFixed(0)}% ${p.read}/~${p.total} events (${p.eventsPerSecond} ev/s)`;
}
