import type { Position } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import { ProjectionCheckpoint } from './projection-checkpoint.entity';

/** Reads a projection's checkpoint; undefined when it has never run (start from the beginning). */
export async function loadCheckpoint(manager: EntityManager, name: string): Promise<Position | undefined> {
  const row = await manager.findOneBy(ProjectionCheckpoint, { name });
  return row ? { commit: BigInt(row.commit), prepare: BigInt(row.prepare) } : undefined;
}

/**
 * Stores a projection's checkpoint; call inside the transaction that wrote the projection's rows. `lastEventAt` (the
 * newest applied event's recorded-at) also records the projection lag: how long that event took to be applied.
 */
export async function saveCheckpoint(
  manager: EntityManager,
  name: string,
  position: Position,
  eventsApplied: number,
  now: Date,
  lastEventAt?: string,
): Promise<void> {
  const lagMs = lastEventAt ? Math.max(0, now.getTime() - Date.parse(lastEventAt)) : null;
  await manager.query(
    `INSERT INTO projection_checkpoints (name, commit, prepare, events_applied, updated_at, last_event_at, lag_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (name) DO UPDATE SET commit = EXCLUDED.commit, prepare = EXCLUDED.prepare,
       events_applied = projection_checkpoints.events_applied + EXCLUDED.events_applied, updated_at = EXCLUDED.updated_at,
       last_event_at = COALESCE(EXCLUDED.last_event_at, projection_checkpoints.last_event_at),
       lag_ms = COALESCE(EXCLUDED.lag_ms, projection_checkpoints.lag_ms)`,
    [
      name,
      position.commit.toString(),
      position.prepare.toString(),
      eventsApplied,
      now,
      lastEventAt ?? null,
      lagMs,
    ],
  );
}

/** Each projection's lag: how long its newest applied event took to reach the read model (null before any). */
export async function projectionLags(
  manager: EntityManager,
): Promise<Array<{ name: string; lagSeconds: number | null; lastEventAt: string | null }>> {
  const rows: Array<{ name: string; lag_ms: number | null; last_event_at: Date | null }> =
    await manager.query('SELECT name, lag_ms, last_event_at FROM projection_checkpoints ORDER BY name');
  return rows.map((r) => ({
    name: r.name,
    lagSeconds: r.lag_ms === null ? null : Number(r.lag_ms) / 1000,
    lastEventAt: r.last_event_at ? new Date(r.last_event_at).toISOString() : null,
  }));
}

/** Removes a projection's checkpoint (before a rebuild from zero). */
export async function resetCheckpoint(manager: EntityManager, name: string): Promise<void> {
  await manager.delete(ProjectionCheckpoint, { name });
}
