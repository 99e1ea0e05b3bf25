import { EventDataOf, HcnEvent, RecordedEventOf, RecordedHcnEvent, isEventOfTypes } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';
import {
  applyDomainDefinition,
  refreshDomainSummaries,
  unusedCpuMillis,
  unusedMemoryBytes,
  usableNode,
} from './domain-summary';
import {
  CapacityEvent,
  applyCapacityEvents,
  isCapacityEvent,
  refreshReservedCapacity,
} from './node-capacity';

type Registration = EventDataOf<'NodeRegistered'>;
/** Events of the node lifecycle this projection reads (the `Node*` types). */
type NodeLifecycleEvent = RecordedEventOf<Extract<HcnEvent['type'], `Node${string}`>>;
/** The node lifecycle event types, each named once. */
const NODE_LIFECYCLE_TYPES: Readonly<Record<NodeLifecycleEvent['type'], true>> = {
  NodeRegistered: true,
  NodeReregistered: true,
  NodeHeartbeatRecorded: true,
  NodeWentOffline: true,
  NodeCameOnline: true,
  NodeDrainRequested: true,
  NodeStopRequested: true,
  NodeDeregistered: true,
  NodeLabelsChanged: true,
  NodeDeviceHealthChanged: true,
};

async function upsertRegistration(
  tx: EntityManager,
  data: Registration,
  at: string,
  reregistered: boolean,
): Promise<void> {
  await tx.query(
    `INSERT INTO node_state (node_id, domain_id, hostname, arch, os, cpu_cores, memory_bytes, disk_bytes, labels, is_head,
       agent_version, status, draining, stop_requested, registered_at, last_seen_at, updated_at, accelerators, devices)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'online', false, false, $12, $12, $12, $14, $15)
     ON CONFLICT (node_id) DO UPDATE SET domain_id = EXCLUDED.domain_id, hostname = EXCLUDED.hostname,
       arch = EXCLUDED.arch, os = EXCLUDED.os, cpu_cores = EXCLUDED.cpu_cores, memory_bytes = EXCLUDED.memory_bytes,
       disk_bytes = EXCLUDED.disk_bytes, labels = EXCLUDED.labels, is_head = EXCLUDED.is_head,
       accelerators = EXCLUDED.accelerators, devices = EXCLUDED.devices,
       agent_version = EXCLUDED.agent_version, status = 'online', stop_requested = false,
       draining = CASE WHEN $13 THEN node_state.draining ELSE false END,
       registered_at = CASE WHEN $13 THEN node_state.registered_at ELSE EXCLUDED.registered_at END,
       last_seen_at = GREATEST(node_state.last_seen_at, EXCLUDED.last_seen_at),
       updated_at = GREATEST(node_state.updated_at, EXCLUDED.updated_at)`,
    [
      data.nodeId,
      data.domainId,
      data.hostname,
      data.arch,
      data.os,
      data.cpuCores,
      data.memoryBytes,
      data.diskBytes,
      JSON.stringify(data.labels),
      data.isHead,
      data.agentVersion,
      at,
      reregistered,
      data.accelerators ?? 0,
      JSON.stringify(data.devices ?? []),
    ],
  );
}

async function setColumns(
  tx: EntityManager,
  nodeId: string,
  at: string,
  sets: string,
  values: unknown[],
): Promise<void> {
  await tx.query(`UPDATE node_state SET ${sets}, updated_at = GREATEST(updated_at, $2) WHERE node_id = $1`, [
    nodeId,
    at,
    ...values,
  ]);
}

/** Keeps only the newest heartbeat per node in a batch (earlier ones are overwritten anyway). */
function latestHeartbeats(
  events: readonly RecordedHcnEvent[],
): Map<string, RecordedEventOf<'NodeHeartbeatRecorded'>> {
  const latest = new Map<string, RecordedEventOf<'NodeHeartbeatRecorded'>>();
  for (const event of events) {
    if (event.type === 'NodeHeartbeatRecorded') latest.set(event.data.nodeId, event);
  }
  return latest;
}

/**
 * Applies the newest heartbeat of each node (guarded by seq, so a replay changes nothing) and moves the usage columns
 * of their domains' summaries by the exact integer change of each usable node's unused CPU and memory, in one
 * statement: re-aggregating every node of a domain per batch was the projector's costliest query at 10,000 nodes.
 * Returns the domains whose summaries changed.
 */
async function applyHeartbeats(
  tx: EntityManager,
  events: ReadonlyArray<RecordedEventOf<'NodeHeartbeatRecorded'>>,
): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => {
    const data = event.data;
    return {
      node_id: data.nodeId,
      seq: data.seq,
      cpu: data.usage.cpuUsage,
      mem: data.usage.memoryUsedBytes,
      disk: data.usage.diskUsedBytes,
      at: event.recordedAt,
    };
  });
  // TypeORM answers an UPDATE ... RETURNING with [rows, affected count].
  const [changed]: [Array<{ domain_id: string }>, number] = await tx.query(
    `WITH h AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS h(node_id uuid, seq int, cpu double precision, mem bigint, disk bigint, at timestamptz)
     ), updated AS (
       UPDATE node_state n SET cpu_usage = h.cpu, memory_used_bytes = h.mem, disk_used_bytes = h.disk,
         last_heartbeat_seq = h.seq, last_seen_at = GREATEST(n.last_seen_at, h.at),
         updated_at = GREATEST(n.updated_at, h.at)
       FROM h, node_state o
       WHERE n.node_id = h.node_id AND o.node_id = n.node_id
         AND (n.last_heartbeat_seq IS NULL OR n.last_heartbeat_seq < h.seq)
       RETURNING n.domain_id, ${usableNode('n')} AS usable,
         ${unusedCpuMillis('n')} - ${unusedCpuMillis('o')} AS cpu_delta,
         ${unusedMemoryBytes('n')} - ${unusedMemoryBytes('o')} AS memory_delta
     ), deltas AS (
       SELECT domain_id, sum(cpu_delta) AS cpu, sum(memory_delta) AS memory FROM updated WHERE usable
       GROUP BY domain_id
     )
     UPDATE domain_summary d SET cpu_millis_available = d.cpu_millis_available + deltas.cpu,
       memory_bytes_available = d.memory_bytes_available + deltas.memory
     FROM deltas WHERE d.domain_id = deltas.domain_id
     RETURNING d.domain_id`,
    [JSON.stringify(rows)],
  );
  return changed.map((row) => row.domain_id);
}

async function applyLifecycle(tx: EntityManager, event: NodeLifecycleEvent, at: string): Promise<void> {
  switch (event.type) {
    case 'NodeRegistered':
    case 'NodeReregistered':
      return upsertRegistration(tx, event.data, at, event.type === 'NodeReregistered');
    case 'NodeWentOffline':
      return setColumns(tx, event.data.nodeId, at, `status = 'offline'`, []);
    case 'NodeCameOnline':
      return setColumns(
        tx,
        event.data.nodeId,
        at,
        `status = 'online', last_seen_at = GREATEST(last_seen_at, $3::timestamptz)`,
        [event.data.seenAt],
      );
    case 'NodeDrainRequested':
      return setColumns(tx, event.data.nodeId, at, 'draining = true', []);
    case 'NodeStopRequested':
      return setColumns(tx, event.data.nodeId, at, 'stop_requested = true', []);
    case 'NodeDeregistered':
      return setColumns(tx, event.data.nodeId, at, `status = 'deregistered'`, []);
    case 'NodeLabelsChanged':
      return setColumns(tx, event.data.nodeId, at, 'labels = $3', [JSON.stringify(event.data.labels)]);
    case 'NodeHeartbeatRecorded':
      return; // batched separately
    case 'NodeDeviceHealthChanged':
      return; // device_state follows the heartbeats themselves
    default: {
      const unreachable: never = event;
      throw new Error(`Unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** What the non-heartbeat events of a batch touched. */
interface Touched {
  /** Nodes whose capacity events were applied, with the latest such event's time. */
  readonly capacity: Map<string, string>;
  /** True when registrations, labels or domain definitions changed (resource tags are recomputed). */
  tags: boolean;
}

/** Applies one event other than a heartbeat or a capacity event: a node lifecycle event or a domain definition. */
async function applyEvent(tx: EntityManager, event: RecordedHcnEvent, changes: ChangeSet, touched: Touched) {
  if (event.type === 'DomainDefined' || event.type === 'DomainUpdated') {
    changes.domains.add(await applyDomainDefinition(tx, event));
    touched.tags = true;
    return;
  }
  if (!isEventOfTypes(event, NODE_LIFECYCLE_TYPES)) throw new Error(`Unhandled event ${event.type}`);
  const nodeId = event.data.nodeId;
  if (event.type === 'NodeReregistered') {
    // A node may move to another domain: its old domain's summary changes too.
    const before: Array<{ domain_id: string }> = await tx.query(
      'SELECT domain_id FROM node_state WHERE node_id = $1',
      [nodeId],
    );
    before.forEach((row) => changes.domains.add(row.domain_id));
  }
  await applyLifecycle(tx, event, event.recordedAt);
  changes.nodes.add(nodeId);
  touched.tags = true;
}

/**
 * Projection of node-* and heartbeat-* streams (lifecycle, heartbeats, capacity reservations) and domain-* streams
 * (definitions) into node_state, node_reservation and domain_summary.
 */
export const nodeStateProjection: Projection = {
  name: 'node-state',
  filter: { kind: 'eventTypePrefix', prefixes: ['Node', 'Capacity', 'Domain'] },
  tables: ['node_state', 'domain_summary', 'node_reservation'],
  async apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void> {
    const heartbeats = latestHeartbeats(events);
    const touched: Touched = { capacity: new Map(), tags: false };
    // capacity events touch node_reservation only, which no other event of this projection reads: one statement
    const capacity: CapacityEvent[] = [];
    for (const event of events) {
      if (isCapacityEvent(event)) capacity.push(event);
      else if (event.type !== 'NodeHeartbeatRecorded') await applyEvent(tx, event, changes, touched);
    }
    for (const [nodeId, at] of await applyCapacityEvents(tx, capacity)) {
      touched.capacity.set(nodeId, at);
      changes.nodes.add(nodeId);
    }
    await refreshReservedCapacity(tx, touched.capacity);
    const usageChanged = await applyHeartbeats(tx, [...heartbeats.values()]);
    if (changes.nodes.size > 0) {
      const rows: Array<{ domain_id: string }> = await tx.query(
        'SELECT DISTINCT domain_id FROM node_state WHERE node_id = ANY($1)',
        [[...changes.nodes]],
      );
      for (const row of rows) changes.domains.add(row.domain_id);
    }
    // Domains touched by other events are recomputed whole (after the heartbeats' deltas, which that overrides).
    await refreshDomainSummaries(tx, changes.domains, touched.tags);
    for (const nodeId of heartbeats.keys()) changes.nodes.add(nodeId);
    for (const domainId of usageChanged) changes.domains.add(domainId);
  },
};
