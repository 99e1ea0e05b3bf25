import type { RecordedHcnEvent } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';
import { RecordedWorkloadEvent, applyWorkloadEvent, emptyBook, isWorkloadEvent } from './workloads.reducer';
import { loadBook, saveAllocations, saveWorkloads } from './workloads.rows';

/** Ids a batch refers to: its workloads and the allocations its events name. */
function idsOf(events: readonly RecordedWorkloadEvent[]): { workloads: string[]; allocations: string[] } {
  const workloads = new Set<string>();
  const allocations = new Set<string>();
  for (const { data } of events) {
    workloads.add(data.workloadId);
    if ('allocationId' in data) allocations.add(data.allocationId);
  }
  return { workloads: [...workloads], allocations: [...allocations] };
}

/**
 * Projection of workload-* streams into workload_state (one row per workload, its instances and derived status) and
 * allocation_state (one row per allocation). A batch loads the rows it touches, applies its events in memory (pure
 * reducer, guarded by each workload's last applied stream revision) and writes the changed rows back.
 */
export const workloadsProjection: Projection = {
  name: 'workloads',
  filter: { kind: 'streamPrefix', prefixes: ['workload-'] },
  tables: ['workload_state', 'allocation_state'],
  async apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void> {
    const known = events.filter(isWorkloadEvent);
    if (known.length === 0) return;
    const ids = idsOf(known);
    const book = emptyBook();
    await loadBook(tx, book, ids.workloads, ids.allocations);
    const changed = new Set<string>();
    for (const event of known) {
      const workloadId = applyWorkloadEvent(book, event);
      if (workloadId) changed.add(workloadId);
    }
    await saveWorkloads(
      tx,
      [...changed].map((id) => book.workloads.get(id)!),
    );
    await saveAllocations(
      tx,
      [...book.changedAllocations].map((id) => book.allocations.get(id)!),
    );
    changed.forEach((id) => changes.workloads.add(id));
  },
};
