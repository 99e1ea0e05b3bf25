import {
  EventDataOf,
  HcnEvent,
  RecordedEventOf,
  RecordedHcnEvent,
  isEventOfTypes,
  quotaStream,
} from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';
import { later } from './later';

/** Events of quota-* streams. */
type QuotaEvent = RecordedEventOf<Extract<HcnEvent['type'], `Quota${string}`>>;
/** The quota event types, each named once. */
const QUOTA_EVENT_TYPES: Readonly<Record<QuotaEvent['type'], true>> = {
  QuotaSet: true,
  QuotaConsumed: true,
  QuotaReleased: true,
};

/** What one batch does to one namespace: its events in order, the first and last times. */
interface NamespaceBatch {
  readonly events: QuotaEvent[];
  firstAt: string;
  lastAt: string;
}

/** Groups a batch by namespace; only events of the namespace's own stream count (its revisions guard replays). */
function groupByNamespace(events: readonly RecordedHcnEvent[]): Map<string, NamespaceBatch> {
  const groups = new Map<string, NamespaceBatch>();
  for (const event of events) {
    if (!isEventOfTypes(event, QUOTA_EVENT_TYPES) || event.streamId !== quotaStream(event.data.namespace))
      continue;
    const at = event.recordedAt;
    const group = groups.get(event.data.namespace) ?? { events: [], firstAt: at, lastAt: at };
    group.events.push(event);
    group.lastAt = later(group.lastAt, at);
    groups.set(event.data.namespace, group);
  }
  return groups;
}

/** The namespace's last applied revision, creating its row (no limits, nothing used) on first sight. */
async function lastRevision(tx: EntityManager, namespace: string, at: string): Promise<number> {
  await tx.query(
    `INSERT INTO quota_usage (namespace, limits, used_cpu_millis, used_memory_bytes, used_accelerators,
       used_workloads, last_revision, updated_at)
     VALUES ($1, '{}'::jsonb, 0, 0, 0, 0, -1, $2) ON CONFLICT (namespace) DO NOTHING`,
    [namespace, at],
  );
  const rows: Array<{ last_revision: number }> = await tx.query(
    'SELECT last_revision FROM quota_usage WHERE namespace = $1',
    [namespace],
  );
  return rows[0].last_revision;
}

/**
 * QuotaConsumed carries what the workload holds in total: it replaces the workload's previous hold. A run of them is
 * one statement (the last of a workload's in the run is what it holds).
 */
async function consumed(
  tx: EntityManager,
  events: ReadonlyArray<EventDataOf<'QuotaConsumed'>>,
): Promise<void> {
  const holds = new Map<string, Record<string, unknown>>();
  for (const data of events) {
    const { cpuMillis, memoryBytes, accelerators, acceleratorMemoryBytes, computeUnits } = data.resources;
    holds.set(data.workloadId, {
      workload_id: data.workloadId,
      namespace: data.namespace,
      cpu_millis: cpuMillis,
      memory_bytes: memoryBytes,
      accelerators,
      accelerator_memory_bytes: acceleratorMemoryBytes,
      compute_units: computeUnits,
    });
  }
  await tx.query(
    `INSERT INTO quota_hold (workload_id, namespace, cpu_millis, memory_bytes, accelerators, accelerator_memory_bytes,
       compute_units)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(workload_id uuid, namespace text, cpu_millis bigint,
       memory_bytes bigint, accelerators int, accelerator_memory_bytes bigint, compute_units double precision)
     ON CONFLICT (workload_id) DO UPDATE SET namespace = EXCLUDED.namespace, cpu_millis = EXCLUDED.cpu_millis,
       memory_bytes = EXCLUDED.memory_bytes, accelerators = EXCLUDED.accelerators,
       accelerator_memory_bytes = EXCLUDED.accelerator_memory_bytes, compute_units = EXCLUDED.compute_units`,
    [JSON.stringify([...holds.values()])],
  );
}

/** Applies a namespace's events in order, each run of QuotaConsumed in one statement. */
async function applyQuotaEvents(tx: EntityManager, events: readonly QuotaEvent[]): Promise<void> {
  let run: Array<EventDataOf<'QuotaConsumed'>> = [];
  for (const event of events) {
    if (event.type === 'QuotaConsumed') {
      run.push(event.data);
      continue;
    }
    if (run.length > 0) await consumed(tx, run);
    run = [];
    await applyQuotaEvent(tx, event);
  }
  if (run.length > 0) await consumed(tx, run);
}

async function applyQuotaEvent(tx: EntityManager, event: QuotaEvent): Promise<void> {
  switch (event.type) {
    case 'QuotaSet':
      await tx.query('UPDATE quota_usage SET limits = $2 WHERE namespace = $1', [
        event.data.namespace,
        JSON.stringify(event.data.limits),
      ]);
      return;
    case 'QuotaConsumed':
      return consumed(tx, [event.data]);
    case 'QuotaReleased': // gives back everything the workload holds (as the quota decider folds it)
      await tx.query('DELETE FROM quota_hold WHERE workload_id = $1', [event.data.workloadId]);
      return;
    default: {
      const unreachable: never = event;
      throw new Error(`Unhandled quota event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Recomputes a namespace's usage from its holds and records the last revision and time applied. */
async function refreshUsage(
  tx: EntityManager,
  namespace: string,
  revision: number,
  at: string,
): Promise<void> {
  await tx.query(
    `UPDATE quota_usage q SET used_cpu_millis = h.cpu, used_memory_bytes = h.memory, used_accelerators = h.accelerators,
       used_accelerator_memory_bytes = h.accelerator_memory, used_compute_units = h.units,
       used_workloads = h.workloads, last_revision = $2, updated_at = GREATEST(q.updated_at, $3)
     FROM (SELECT coalesce(sum(cpu_millis), 0) AS cpu, coalesce(sum(memory_bytes), 0) AS memory,
             coalesce(sum(accelerators), 0) AS accelerators,
             coalesce(sum(accelerator_memory_bytes), 0) AS accelerator_memory,
             coalesce(sum(compute_units), 0) AS units, count(*) AS workloads
           FROM quota_hold WHERE namespace = $1) h
     WHERE q.namespace = $1`,
    [namespace, revision, at],
  );
}

/**
 * Projection of quota-* streams into quota_usage (limits and usage per namespace) and quota_hold (what each workload
 * holds). Usage is recomputed from the holds, so it is exact; events at or below a namespace's last applied stream
 * revision are skipped, so a replayed batch changes nothing.
 */
export const quotaUsageProjection: Projection = {
  name: 'quota-usage',
  filter: { kind: 'streamPrefix', prefixes: ['quota-'] },
  tables: ['quota_usage', 'quota_hold'],
  async apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void> {
    for (const [namespace, batch] of groupByNamespace(events)) {
      const last = await lastRevision(tx, namespace, batch.firstAt);
      const fresh = batch.events.filter((e) => e.revision > last);
      if (fresh.length === 0) continue;
      await applyQuotaEvents(tx, fresh);
      await refreshUsage(tx, namespace, fresh[fresh.length - 1].revision, batch.lastAt);
      changes.namespaces.add(namespace);
    }
  },
};
