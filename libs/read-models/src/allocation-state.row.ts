/** A raw `allocation_state` row as `pg` returns it. */
export type AllocationStateRecord = Record<string, unknown>;

/** The columns of an `allocation_state` row in camelCase, with times as `time` renders them. */
export interface AllocationFields<Time> {
  allocationId: string;
  workloadId: string;
  namespace: string;
  instance: number;
  attempt: number;
  generation: number;
  nodeId: string;
  domainId: string;
  status: string;
  resources: { cpuMillis: number; memoryBytes: number; accelerators: number };
  exitCode: number | null;
  signal: string | null;
  reason: string | null;
  pid: number | null;
  placedAt: Time;
  startedAt: Time | null;
  endedAt: Time | null;
}

/** Maps one `allocation_state` row (the one mapping the projector and the hub's queries share). */
export function allocationFromRow<Time>(
  row: AllocationStateRecord,
  time: (v: unknown) => Time,
): AllocationFields<Time> {
  const maybe = (v: unknown): Time | null => (v === null || v === undefined ? null : time(v));
  return {
    allocationId: row.allocation_id as string,
    workloadId: row.workload_id as string,
    namespace: row.namespace as string,
    instance: row.instance as number,
    attempt: row.attempt as number,
    generation: row.generation as number,
    nodeId: row.node_id as string,
    domainId: row.domain_id as string,
    status: row.status as string,
    resources: {
      cpuMillis: row.cpu_millis as number,
      memoryBytes: Number(row.memory_bytes),
      accelerators: row.accelerators as number,
    },
    exitCode: row.exit_code as number | null,
    signal: row.signal as string | null,
    reason: row.reason as string | null,
    pid: row.pid as number | null,
    placedAt: time(row.placed_at),
    startedAt: maybe(row.started_at),
    endedAt: maybe(row.ended_at),
  };
}
