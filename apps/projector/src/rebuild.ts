import type { EventStore } from '@hcn/eventstore';
import { resetCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import type { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';

/** Progress of a rebuild. */
export interface RebuildProgress {
  readonly applied: number;
  readonly total: number | undefined;
  readonly eventsPerSecond: number;
}

/** Drops a projection's tables and replays the log from zero until caught up. */
export async function rebuildProjection(
  store: EventStore,
  dataSource: DataSource,
  projection: Projection,
  onProgress: (progress: RebuildProgress) => void = () => undefined,
): Promise<RebuildProgress> {
  await dataSource.transaction(async (tx) => {
    await tx.query(`TRUNCATE ${projection.tables.join(', ')}`);
    await resetCheckpoint(tx, projection.name);
  });
  const total = await store.approximateEventCount?.();
  const started = Date.now();
  let applied = 0;
  const progress = (): RebuildProgress => ({
    applied,
    total,
    eventsPerSecond: Math.round(applied / Math.max(0.001, (Date.now() - started) / 1000)),
  });
  const timer = setInterval(() => onProgress(progress()), 500);
  const runner = new ProjectionRunner(store, dataSource, projection, {
    maxBatch: 5000,
    onBatch: ({ events }) => (applied += events.length),
  });
  try {
    await runner.start();
    await runner.whenCaughtUp();
  } finally {
    await runner.stop();
    clearInterval(timer);
  }
  const final = progress();
  onProgress(final);
  return final;
}

/** Renders rebuild progress as a one-line bar. */
export function renderProgress(name: string, p: RebuildProgress): string {
  const width = 30;
  if (!p.total) return `[rebuild ${name}] ${p.applied} events (${p.eventsPerSecond} ev/s)`;
  const ratio = Math.min(1, p.applied / p.total);
  const filled = Math.round(ratio * width);
  return `[rebuild ${name}] [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0)}% ${p.applied}/~${p.total} events (${p.eventsPerSecond} ev/s)`;
}
