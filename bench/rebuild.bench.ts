import { scanLog } from '@hcn/audit';
import { PostgresEventStore } from '@hcn/eventstore';
import { openReadModels } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { createProjections } from '../apps/projector/src/projections';
import { rebuildProjections } from '../apps/projector/src/rebuild';
import { writeMonthLog } from './month-log';
import { benchDatabase, progress, report } from './support';

const TARGET_EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 1_000_000);

/** Rows of every read-model table, to show the rebuild wrote what the log holds. */
async function rowCounts(db: DataSource): Promise<Record<string, number>> {
  const tables = createProjections()
    .flatMap((p) => p.tables)
    .sort();
  const counts = await Promise.all(
    tables.map(async (table) => {
      const rows: Array<{ n: string }> = await db.query(`SELECT count(*) AS n FROM ${table}`);
      return [table, Number(rows[0].n)] as const;
    }),
  );
  return Object.fromEntries(counts);
}

async function seconds<T>(step: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = process.hrtime.bigint();
  const value = await step();
  return { value, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/**
 * `npm run bench -- rebuild`: writes a month of events (fleet, workloads with their node-side capacity events,
 * heartbeats), then times a bare read of the whole log (baseline) and a rebuild of every read model from zero.
 */
export async function run(): Promise<void> {
  const db = await benchDatabase('rebuild');
  const store = await PostgresEventStore.connect({ connectionString: db.url });
  const readModels = await openReadModels(db.url, 8);
  try {
    const written = await writeMonthLog(store, TARGET_EVENTS, { capacity: true });
    // the baseline: the whole log through the same catch-up subscription and page size, the handler doing nothing
    const baseline = await seconds(() => scanLog(store, () => undefined, { pageSize: 5000 }));
    console.log(`[bench] baseline: ${baseline.value} events read in ${baseline.seconds.toFixed(1)} s`);
    const rebuild = await seconds(() =>
      rebuildProjections(store, readModels, createProjections(), {
        onProgress: (p) => progress('rebuild', p.read, p.total ?? written.events, 2000),
      }),
    );
    const perSecond = (n: number, s: number) => Math.round(n / s);
    report('rebuild', {
      logEvents: written.events,
      writeSeconds: written.seconds,
      projections: createProjections().map((p) => p.name),
      baselineReadSeconds: baseline.seconds,
      baselineEventsPerSecond: perSecond(baseline.value, baseline.seconds),
      rebuildSeconds: rebuild.seconds,
      rebuildEventsPerSecond: perSecond(rebuild.value.read, rebuild.seconds),
      ratioToBaseline: Math.round((rebuild.seconds / baseline.seconds) * 100) / 100,
      eventsReplayed: rebuild.value.read,
      rows: await rowCounts(readModels),
    });
  } finally {
    await readModels.destroy();
    await store.close();
    await db.stop();
  }
}
