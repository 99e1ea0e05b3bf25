import type { RecordedEventOf } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';

/**
 * Applies a DomainDefined / DomainUpdated: creates the domain's row (no nodes yet) or sets the definition columns of
 * the row its nodes created. A definition at or below the applied stream revision changes nothing.
 */
export async function applyDomainDefinition(
  tx: EntityManager,
  event: RecordedEventOf<'DomainDefined' | 'DomainUpdated'>,
): Promise<string> {
  const data = event.data;
  await tx.query(
    `INSERT INTO domain_summary AS d (domain_id, nodes_online, nodes_offline, nodes_draining, cpu_cores_total,
       memory_bytes_total, memory_bytes_available, resource_tags, defined, definition_revision,
       parent_id, region, labels, policy, head_node_id)
     VALUES ($1, 0, 0, 0, 0, 0, 0, '[]'::jsonb, true, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (domain_id) DO UPDATE SET defined = true, definition_revision = EXCLUDED.definition_revision,
       parent_id = EXCLUDED.parent_id, region = EXCLUDED.region, labels = EXCLUDED.labels, policy = EXCLUDED.policy,
       head_node_id = EXCLUDED.head_node_id
     WHERE d.definition_revision IS NULL OR d.definition_revision < EXCLUDED.definition_revision`,
    [
      data.domainId,
      event.revision,
      data.parentId,
      data.region,
      JSON.stringify(data.labels),
      data.policy,
      data.headNodeId,
    ],
  );
  return data.domainId;
}

/** SQL: true when the node_state row aliased `n` counts towards its domain's available capacity. */
export const usableNode = (n: string): string => `(${n}.status = 'online' AND NOT ${n}.draining)`;

/** SQL: the unused CPU of the node_state row aliased `n`, in whole millicores (cores x (1 - usage), rounded). */
export const unusedCpuMillis = (n: string): string =>
  `round(${n}.cpu_cores * (1 - coalesce(${n}.cpu_usage, 0)) * 1000)::bigint`;

/** SQL: the unused memory of the node_state row aliased `n`, in bytes. */
export const unusedMemoryBytes = (n: string): string =>
  `(${n}.memory_bytes - coalesce(${n}.memory_used_bytes, 0))`;

/**
 * Recomputes the node-derived columns of the given domains from node_state (so rebuilds give identical rows); the
 * definition columns are left as they are. A domain that is not defined and has no node left loses its row. Resource
 * tags come from registrations and labels only, so heartbeat-only batches keep them as they are. Unused CPU is summed
 * in whole millicores, so heartbeats can move it by exact deltas (the node-state projection's applyHeartbeats) and a
 * rebuild gives the same row.
 * Allocatable capacity is what online, not draining nodes have left after their reservations (at least zero a node).
 */
export async function refreshDomainSummaries(
  tx: EntityManager,
  domains: ReadonlySet<string>,
  tagsChanged: boolean,
): Promise<void> {
  if (domains.size === 0) return;
  const ids = [...domains];
  const live = `n.status <> 'deregistered'`;
  const usable = usableNode('n');
  const left = (total: string, reserved: string): string =>
    `coalesce(sum(GREATEST(${total} - n.${reserved}, 0)) FILTER (WHERE ${usable}), 0)`;
  await tx.query(
    `INSERT INTO domain_summary AS d (domain_id, nodes_online, nodes_offline, nodes_draining, cpu_cores_total,
       memory_bytes_total, memory_bytes_available, resource_tags, accelerators_total,
       reserved_cpu_millis, reserved_memory_bytes, reserved_accelerators, cpu_millis_total, cpu_millis_allocatable,
       memory_bytes_allocatable, accelerators_allocatable, cpu_millis_available)
     SELECT ids.domain_id,
       count(*) FILTER (WHERE n.status = 'online'),
       count(*) FILTER (WHERE n.status = 'offline'),
       count(*) FILTER (WHERE n.draining AND ${live}),
       coalesce(sum(n.cpu_cores) FILTER (WHERE ${live}), 0),
       coalesce(sum(n.memory_bytes) FILTER (WHERE ${live}), 0),
       coalesce(sum(${unusedMemoryBytes('n')}) FILTER (WHERE ${usable}), 0),
       '[]'::jsonb,
       coalesce(sum(n.accelerators) FILTER (WHERE ${live}), 0),
       coalesce(sum(n.reserved_cpu_millis) FILTER (WHERE ${live}), 0),
       coalesce(sum(n.reserved_memory_bytes) FILTER (WHERE ${live}), 0),
       coalesce(sum(n.reserved_accelerators) FILTER (WHERE ${live}), 0),
       coalesce(sum(n.cpu_cores::bigint * 1000) FILTER (WHERE ${live}), 0),
       ${left('n.cpu_cores::bigint * 1000', 'reserved_cpu_millis')},
       ${left('n.memory_bytes', 'reserved_memory_bytes')},
       ${left('n.accelerators', 'reserved_accelerators')},
       coalesce(sum(${unusedCpuMillis('n')}) FILTER (WHERE ${usable}), 0)
     FROM unnest($1::text[]) AS ids(domain_id) LEFT JOIN node_state n ON n.domain_id = ids.domain_id
     GROUP BY ids.domain_id
     ON CONFLICT (domain_id) DO UPDATE SET nodes_online = EXCLUDED.nodes_online, nodes_offline = EXCLUDED.nodes_offline,
       nodes_draining = EXCLUDED.nodes_draining, cpu_cores_total = EXCLUDED.cpu_cores_total,
       memory_bytes_total = EXCLUDED.memory_bytes_total,
       memory_bytes_available = EXCLUDED.memory_bytes_available, accelerators_total = EXCLUDED.accelerators_total,
       reserved_cpu_millis = EXCLUDED.reserved_cpu_millis, reserved_memory_bytes = EXCLUDED.reserved_memory_bytes,
       reserved_accelerators = EXCLUDED.reserved_accelerators, cpu_millis_total = EXCLUDED.cpu_millis_total,
       cpu_millis_allocatable = EXCLUDED.cpu_millis_allocatable,
       memory_bytes_allocatable = EXCLUDED.memory_bytes_allocatable,
       accelerators_allocatable = EXCLUDED.accelerators_allocatable,
       cpu_millis_available = EXCLUDED.cpu_millis_available`,
    [ids],
  );
  await tx.query(
    `DELETE FROM domain_summary d WHERE d.domain_id = ANY($1) AND NOT d.defined
       AND NOT EXISTS (SELECT 1 FROM node_state n WHERE n.domain_id = d.domain_id)`,
    [ids],
  );
  if (tagsChanged) await refreshResourceTags(tx, ids);
}

async function refreshResourceTags(tx: EntityManager, ids: readonly string[]): Promise<void> {
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
