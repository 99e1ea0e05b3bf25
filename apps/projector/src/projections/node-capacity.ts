import type { RecordedEventOf, RecordedHcnEvent } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import { later } from './later';

/** A capacity event of a node stream. */
export type CapacityEvent = RecordedEventOf<'CapacityReserved' | 'CapacityReleased'>;

/** True for the capacity events of node streams. */
export function isCapacityEvent(event: RecordedHcnEvent): event is CapacityEvent {
  return event.type === 'CapacityReserved' || event.type === 'CapacityReleased';
}

/** A node_reservation row as a batch of capacity events leaves it. */
interface ReservationRow {
  allocation_id: string;
  node_id: string;
  workload_id: string | null;
  cpu_millis: number;
  memory_bytes: number;
  accelerators: number;
  released: boolean;
  devices: unknown[];
}

/**
 * Records capacity events (CapacityReserved / CapacityReleased) in node_reservation, all in one statement. A
 * reservation is written once; a release marks it released (or leaves a released tombstone when it comes first),
 * so no replay or order can count it twice: an allocation's first event gives its row, later ones only release it,
 * and a stored row is only ever released further. Returns each touched node with its latest event's time.
 */
export async function applyCapacityEvents(
  tx: EntityManager,
  events: readonly CapacityEvent[],
): Promise<Map<string, string>> {
  const rows = new Map<string, ReservationRow>();
  const touched = new Map<string, string>();
  for (const event of events) {
    const { allocationId, nodeId } = event.data;
    touched.set(nodeId, later(touched.get(nodeId) ?? event.recordedAt, event.recordedAt));
    const row = rows.get(allocationId);
    if (row) {
      row.released ||= event.type === 'CapacityReleased';
      continue;
    }
    rows.set(allocationId, rowOf(event));
  }
  if (rows.size === 0) return touched;
  await tx.query(
    `INSERT INTO node_reservation AS r (allocation_id, node_id, workload_id, cpu_millis, memory_bytes, accelerators,
       released, devices)
     SELECT allocation_id, node_id, workload_id, cpu_millis, memory_bytes, accelerators, released, devices
     FROM jsonb_to_recordset($1::jsonb) AS t(allocation_id uuid, node_id uuid, workload_id uuid, cpu_millis bigint,
       memory_bytes bigint, accelerators int, released boolean, devices jsonb)
     ON CONFLICT (allocation_id) DO UPDATE SET released = r.released OR EXCLUDED.released`,
    [JSON.stringify([...rows.values()])],
  );
  return touched;
}

/** The row an allocation's first capacity event gives: its reservation, or a released tombstone. */
function rowOf(event: CapacityEvent): ReservationRow {
  const { allocationId, nodeId } = event.data;
  if (event.type === 'CapacityReleased') {
    const none = { cpu_millis: 0, memory_bytes: 0, accelerators: 0, devices: [] };
    return { allocation_id: allocationId, node_id: nodeId, workload_id: null, released: true, ...none };
  }
  const { workloadId, resources, devices } = event.data;
  return {
    allocation_id: allocationId,
    node_id: nodeId,
    workload_id: workloadId,
    cpu_millis: resources.cpuMillis,
    memory_bytes: resources.memoryBytes,
    accelerators: resources.accelerators,
    released: false,
    devices: devices ?? [],
  };
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
