import type { Position } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import { ProjectionCheckpoint } from './projection-checkpoint.entity';

/** Reads a projection's checkpoint; undefined when it has never run (start from the beginning). */
export async function loadCheckpoint(manager: EntityManager, name: string): Promise<Position | undefined> {
  const row = await manager.findOneBy(ProjectionCheckpoint, { name });
  return row ? { commit: BigInt(row.commit), prepare: BigInt(row.prepare) } : undefined;
}

/** Stores a projection's checkpoint; call inside the transaction that wrote the projection's rows. */
export async function saveCheckpoint(
  manager: EntityManager,
  name: string,
  position: Position,
  eventsApplied: number,
  now: Date,
): Promise<void> {
  await manager.query(
    `INSERT INTO projection_checkpoints (name, commit, prepare, events_applied, updated_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (name) DO UPDATE SET commit = EXCLUDED.commit, prepare = EXCLUDED.prepare,
       events_applied = projection_checkpoints.events_applied + EXCLUDED.events_applied, updated_at = EXCLUDED.updated_at`,
    [name, position.commit.toString(), position.prepare.toString(), eventsApplied, now],
  );
}

/** Removes a projection's checkpoint (before a rebuild from zero). */
export async function resetCheckpoint(manager: EntityManager, name: string): Promise<void> {
  await manager.delete(ProjectionCheckpoint, { name });
}
