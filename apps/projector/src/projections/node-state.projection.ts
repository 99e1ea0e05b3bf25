import type { EventDataOf, HcnEvent, RecordedEvent } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

type Registration = EventDataOf<'NodeRegistered'>;

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
       last_seen_at = EXCLUDED.last_seen_at, updated_at = EXCLUDED.updated_at`,
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
  await tx.query(`UPDATE node_state SET ${sets}, updated_at = $2 WHERE node_id = $1`, [
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

async function applyHeartbeat(tx: EntityManager, event: RecordedEvent): Promise<void> {
  const data = event.data as EventDataOf<'NodeHeartbeatRecorded'>;
  await tx.query(
    `UPDATE node_state SET cpu_usage = $2, memory_used_bytes = $3, disk_used_bytes = $4, last_heartbeat_seq = $5,
       last_seen_at = GREATEST(last_seen_at, $6::timestamptz), updated_at = $6
     WHERE node_id = $1 AND (last_heartbeat_seq IS NULL OR last_heartbeat_seq < $5)`,
    [
      data.nodeId,
      data.usage.cpuUsage,
      data.usage.memoryUsedBytes,
      data.usage.diskUsedBytes,
      data.seq,
      event.recordedAt,
    ],
  );
}

async function applyLifecycle(tx: EntityManager, event: HcnEvent, at: string): Promise<void> {
  switch (event.type) {
    case 'NodeRegistered':
    case 'NodeReregistered':
      return upsertRegistration(tx, event.data, at, event.type === 'NodeReregistered');
    case 'NodeWentOffline':
      return setColumns(tx, event.data.nodeId, at, `status = 'offline'`, []);
    case 'NodeCameOnline':
      return setColumns(tx, event.data.nodeId, at, `status = 'online', last_seen_at = $3`, [
        event.data.seenAt,
      ]);
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

/** Recomputes the summary rows of the given domains from node_state (so rebuilds give identical rows). */
export async function refreshDomainSummaries(tx: EntityManager, domains: ReadonlySet<string>): Promise<void> {
  if (domains.size === 0) return;
  const ids = [...domains];
  await tx.query('DELETE FROM domain_summary WHERE domain_id = ANY($1)', [ids]);
  await tx.query(
    `INSERT INTO domain_summary (domain_id, nodes_online, nodes_offline, nodes_draining, cpu_cores_total,
       cpu_cores_available, memory_bytes_total, memory_bytes_available, resource_tags)
     SELECT n.domain_id,
       count(*) FILTER (WHERE n.status = 'online'),
       count(*) FILTER (WHERE n.status = 'offline'),
       count(*) FILTER (WHERE n.draining AND n.status <> 'deregistered'),
       coalesce(sum(n.cpu_cores) FILTER (WHERE n.status <> 'deregistered'), 0),
       coalesce(sum(n.cpu_cores * (1 - coalesce(n.cpu_usage, 0))) FILTER (WHERE n.status = 'online' AND NOT n.draining), 0),
       coalesce(sum(n.memory_bytes) FILTER (WHERE n.status <> 'deregistered'), 0),
       coalesce(sum(n.memory_bytes - coalesce(n.memory_used_bytes, 0)) FILTER (WHERE n.status = 'online' AND NOT n.draining), 0),
       (SELECT coalesce(jsonb_agg(DISTINCT t.tag ORDER BY t.tag), '[]'::jsonb) FROM node_state m
          CROSS JOIN LATERAL (SELECT 'arch=' || m.arch AS tag UNION ALL SELECT 'os=' || m.os
            UNION ALL SELECT l.key || '=' || l.value FROM jsonb_each_text(m.labels) l) t
          WHERE m.domain_id = n.domain_id AND m.status <> 'deregistered')
     FROM node_state n WHERE n.domain_id = ANY($1) GROUP BY n.domain_id`,
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
      await applyLifecycle(tx, event as unknown as HcnEvent, event.recordedAt);
      changes.nodes.add((event.data as { nodeId: string }).nodeId);
    }
    for (const event of heartbeats.values()) {
      await applyHeartbeat(tx, event);
      changes.nodes.add((event.data as { nodeId: string }).nodeId);
    }
    if (changes.nodes.size === 0) return;
    const rows: Array<{ domain_id: string }> = await tx.query(
      'SELECT DISTINCT domain_id FROM node_state WHERE node_id = ANY($1)',
      [[...changes.nodes]],
    );
    for (const row of rows) changes.domains.add(row.domain_id);
    await refreshDomainSummaries(tx, changes.domains);
  },
};
