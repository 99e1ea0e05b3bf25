import type { RecordedEventOf, RecordedHcnEvent } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';

/** A capacity event of a node stream. */
export type CapacityEvent = RecordedEventOf<'CapacityReserved' | 'CapacityReleased'>;

/** True for the capacity events of node streams. */
export function isCapacityEvent(event: RecordedHcnEvent): event is CapacityEvent {
  return event.type === 'CapacityReserved' || event.type === 'CapacityReleased';
}

/**
 * Records a CapacityReserved / CapacityReleased in node_reservation. A reservation is written once; a release marks
 * it released (or leaves a released tombstone when it comes first), so no replay or order can count it twice.
 */
export async function applyCapacityEvent(tx: EntityManager, event: CapacityEvent): Promise<string> {
  if (event.type === 'CapacityReserved') {
    const data = event.data;
    await tx.query(
      `INSERT INTO node_reservation (allocation_id, node_id, workload_id, cpu_millis, memory_bytes, accelerators, released,
         devices)
       VALUES ($1, $2, $3, $4, $5, $6, false, $7) ON CONFLICT (allocation_id) DO NOTHING`,
      [
        data.allocationId,
        data.nodeId,
        data.workloadId,
        data.resources.cpuMillis,
        data.resources.memoryBytes,
        data.resources.accelerators,
        JSON.stringify(data.devices ?? []),
      ],
    );
    return data.nodeId;
  }
  const data = event.data;
  await tx.query(
    `INSERT INTO node_reservation (allocation_id, node_id, workload_id, cpu_millis, memory_bytes, accelerators, released)
     VALUES ($1, $2, NULL, 0, 0, 0, true) ON CONFLICT (allocation_id) DO UPDATE SET released = true`,
    [data.allocationId, data.nodeId],
  );
  return data.nodeId;
}

/**
 * Sets the reserved_* columns of the given nodes to the sum of their unreleased reservations, and their updated_at
 * to the latest capacity event's time when that is later.
 */
export async function refreshReservedCapacity(
  tx: EntityManager,
  touched: ReadonlyMap<string, string>,
): Promise<void> {
  if (touched.size === 0) return;
  const rows = [...touched].map(([node_id, at]) => ({ node_id, at }));
  await tx.query(
    `UPDATE node_state n SET reserved_cpu_millis = s.cpu, reserved_memory_bytes = s.memory,
       reserved_accelerators = s.accelerators, updated_at = GREATEST(n.updated_at, s.at)
     FROM (SELECT t.node_id, t.at, coalesce(sum(r.cpu_millis), 0) AS cpu, coalesce(sum(r.memory_bytes), 0) AS memory,
             coalesce(sum(r.accelerators), 0) AS accelerators
           FROM jsonb_to_recordset($1::jsonb) AS t(node_id uuid, at timestamptz)
           LEFT JOIN node_reservation r ON r.node_id = t.node_id AND NOT r.released
           GROUP BY t.node_id, t.at) s
     WHERE n.node_id = s.node_id`,
    [JSON.stringify(rows)],
  );
}
