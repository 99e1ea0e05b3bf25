import type { RecordedHcnEvent } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';
import { RecordedWorkloadEvent, applyWorkloadEvent, emptyBook, isWorkloadEvent } from './workloads.fold';
import { saveNodeRuntime } from './node-runtime.rows';
import { loadBook, saveBook } from './workloads.rows';

/** Ids a batch refers to: its workloads and the allocations its events name. */
function idsOf(events: readonly RecordedWorkloadEvent[]): { workloads: string[]; allocations: string[] } {
  const workloads = new Set<string>();
  const allocations = new Set<string>();
  for (const { data } of events) {
    workloads.add(data.workloadId);
    if ('allocationId' in data && data.allocationId) allocations.add(data.allocationId);
  }
  return { workloads: [...workloads], allocations: [...allocations] };
}

/**
 * Projection of workload-* streams into workload_state (one row per workload: the workload decider's folded state
 * and the columns mapped from it), allocation_state (one row per allocation) and node_runtime (each node's active
 * allocations and last error, from the allocations' transitions). A batch loads the rows it touches,
 * evolves each workload's state with the domain's evolve (guarded by its last folded stream revision) and writes the
 * changed rows back, mapped from the state.
 */
export const workloadsProjection: Projection = {
  name: 'workloads',
  filter: { kind: 'streamPrefix', prefixes: ['workload-'] },
  tables: ['workload_state', 'allocation_state', 'node_runtime'],
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
    await saveBook(tx, book, changed);
    changed.forEach((id) => changes.workloads.add(id));
    const nodes = await saveNodeRuntime(tx, book.runtime);
    nodes.forEach((id) => changes.nodes.add(id));
  },
};
