import type { EventDataOf, HcnEvent, RecordedEvent } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

type Registration = EventDataOf<'NodeRegistered'>;
/** Events of the node lifecycle this projection reads (the `Node*` types). */
type NodeLifecycleEvent = Extract<HcnEvent, { type: `Node${string}` }>;

async function upsertRegistration(
  tx: EntityManager,
  data: Registration,
  at: string,
  reregistered: boolean,
): Promise<void> {
  await tx.query(
    `INSERT INTO node_state (node_id, domain_id, hostname, arch, os, cpu_cores, memory_bytes, disk_bytes, labels, is_head,
       agent_version, status, draining, stop_requested, registered_at, last_seen_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'online', false, false, $12, $12, $12)
     ON CONFLICT (node_id) DO UPDATE SET domain_id = EXCLUDED.domain_id, hostname = EXCLUDED.hostname,
       arch = EXCLUDED.arch, os = EXCLUDED.os, cpu_cores = EXCLUDED.cpu_cores, memory_bytes = EXCLUDED.memory_bytes,
       disk_bytes = EXCLUDED.disk_bytes, labels = EXCLUDED.labels, is_head = EXCLUDED.is_head,
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
function latestHeartbeats(events: readonly RecordedEvent[]): Map<string, RecordedEvent> {
  const latest = new Map<string, RecordedEvent>();
  for (const event of events) {
    if (event.type === 'NodeHeartbeatRecorded') latest.set((event.data as { nodeId: string }).nodeId, event);
  }
  return latest;
}

/** Applies the newest heartbeat of each node in one statement (guarded by seq, so a replay changes nothing). */
async function applyHeartbeats(tx: EntityManager, events: readonly RecordedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => {
    const data = event.data as EventDataOf<'NodeHeartbeatRecorded'>;
    return {
      node_id: data.nodeId,
      seq: data.seq,
      cpu: data.usage.cpuUsage,
      mem: data.usage.memoryUsedBytes,
      disk: data.usage.diskUsedBytes,
      at: event.recordedAt,
    };
  });
  await tx.query(
    `UPDATE node_state n SET cpu_usage = h.cpu, memory_used_bytes = h.mem, disk_used_bytes = h.disk,
       last_heartbeat_seq = h.seq, last_seen_at = GREATEST(n.last_seen_at, h.at), updated_at = GREATEST(n.updated_at, h.at)
     FROM jsonb_to_recordset($1::jsonb) AS h(node_id uuid, seq int, cpu double precision, mem bigint, disk bigint, at timestamptz)
     WHERE n.node_id = h.node_id AND (n.last_heartbeat_seq IS NULL OR n.last_heartbeat_seq < h.seq)`,
    [JSON.stringify(rows)],
  );
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
    default: {
      const unreachable: never = event;
      throw new Error(`Unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Recomputes the summary rows of the given domains from node_state (so rebuilds give identical rows). Resource
 * tags come from registrations and labels only, so heartbeat-only batches keep them as they are.
 */
export async function refreshDomainSummaries(
  tx: EntityManager,
  domains: ReadonlySet<string>,
  tagsChanged: boolean,
): Promise<void> {
  if (domains.size === 0) return;
  const ids = [...domains];
  await tx.query(
    `INSERT INTO domain_summary AS d (domain_id, nodes_online, nodes_offline, nodes_draining, cpu_cores_total,
       cpu_cores_available, memory_bytes_total, memory_bytes_available, resource_tags)
     SELECT n.domain_id,
       count(*) FILTER (WHERE n.status = 'online'),
       count(*) FILTER (WHERE n.status = 'offline'),
       count(*) FILTER (WHERE n.draining AND n.status <> 'deregistered'),
       coalesce(sum(n.cpu_cores) FILTER (WHERE n.status <> 'deregistered'), 0),
       coalesce(sum(n.cpu_cores * (1 - coalesce(n.cpu_usage, 0))) FILTER (WHERE n.status = 'online' AND NOT n.draining), 0),
       coalesce(sum(n.memory_bytes) FILTER (WHERE n.status <> 'deregistered'), 0),
       coalesce(sum(n.memory_bytes - coalesce(n.memory_used_bytes, 0)) FILTER (WHERE n.status = 'online' AND NOT n.draining), 0),
       '[]'::jsonb
     FROM node_state n WHERE n.domain_id = ANY($1) GROUP BY n.domain_id
     ON CONFLICT (domain_id) DO UPDATE SET nodes_online = EXCLUDED.nodes_online, nodes_offline = EXCLUDED.nodes_offline,
       nodes_draining = EXCLUDED.nodes_draining, cpu_cores_total = EXCLUDED.cpu_cores_total,
       cpu_cores_available = EXCLUDED.cpu_cores_available, memory_bytes_total = EXCLUDED.memory_bytes_total,
       memory_bytes_available = EXCLUDED.memory_bytes_available`,
    [ids],
  );
  if (!tagsChanged) return;
  await tx.query(
    `UPDATE domain_summary d SET resource_tags = (
       SELECT coalesce(jsonb_agg(DISTINCT t.tag ORDER BY t.tag), '[]'::jsonb) FROM node_state m
       CROSS JOIN LATERAL (SELECT 'arch=' || m.arch AS tag UNION ALL SELECT 'os=' || m.os
         UNION ALL SELECT l.key || '=' || l.value FROM jsonb_each_text(m.labels) l) t
       WHERE m.domain_id = d.domain_id AND m.status <> 'deregistered')
     WHERE d.domain_id = ANY($1)`,
    [ids],
  );
}

/** Projection of node-* and heartbeat-* streams into node_state and domain_summary. */
export const nodeStateProjection: Projection = {
  name: 'node-state',
  filter: { kind: 'eventTypePrefix', prefixes: ['Node'] },
  tables: ['node_state', 'domain_summary'],
  async apply(tx: EntityManager, events: readonly RecordedEvent[], changes: ChangeSet): Promise<void> {
    const heartbeats = latestHeartbeats(events);
    for (const event of events) {
      if (event.type === 'NodeHeartbeatRecorded') continue;
      if (event.type === 'NodeReregistered') {
        // A node may move to another domain: its old domain's summary changes too.
        const before: Array<{ domain_id: string }> = await tx.query(
          'SELECT domain_id FROM node_state WHERE node_id = $1',
          [(event.data as { nodeId: string }).nodeId],
        );
        before.forEach((row) => changes.domains.add(row.domain_id));
      }
      await applyLifecycle(tx, event as unknown as NodeLifecycleEvent, event.recordedAt);
      changes.nodes.add((event.data as { nodeId: string }).nodeId);
    }
    await applyHeartbeats(tx, [...heartbeats.values()]);
    for (const nodeId of heartbeats.keys()) changes.nodes.add(nodeId);
    const lifecycle = events.some((e) => e.type !== 'NodeHeartbeatRecorded');
    if (changes.nodes.size === 0) return;
    const rows: Array<{ domain_id: string }> = await tx.query(
      'SELECT DISTINCT domain_id FROM node_state WHERE node_id = ANY($1)',
      [[...changes.nodes]],
    );
    for (const row of rows) changes.domains.add(row.domain_id);
    await refreshDomainSummaries(tx, changes.domains, lifecycle);
  },
};
