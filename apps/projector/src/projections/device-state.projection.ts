import type { RecordedEventOf, RecordedHcnEvent } from '@hcn/contracts';
import { DEVICE_STATE, DeviceStateRecord } from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

type Registration = RecordedEventOf<'NodeRegistered' | 'NodeReregistered'>;
type Heartbeat = RecordedEventOf<'NodeHeartbeatRecorded'>;

/**
 * Replaces a node's device rows with the registered devices (usage of devices still present is kept), unless a
 * registration of the node at this revision or later is already applied. Returns whether it applied.
 */
async function applyRegistration(tx: EntityManager, event: Registration): Promise<boolean> {
  const data = event.data;
  const at = event.recordedAt;
  const claimed: unknown[] = await tx.query(
    `INSERT INTO device_registrations (node_id, revision, recorded_at) VALUES ($1, $2, $3)
     ON CONFLICT (node_id) DO UPDATE SET revision = EXCLUDED.revision, recorded_at = EXCLUDED.recorded_at
       WHERE device_registrations.revision < EXCLUDED.revision
     RETURNING node_id`,
    [data.nodeId, event.revision, at],
  );
  if (claimed.length === 0) return false;
  const devices: Array<Pick<DeviceStateRecord, 'vendor' | 'index' | 'model' | 'memory_bytes' | 'health'>> = (
    data.devices ?? []
  ).map((d) => ({
    vendor: d.vendor,
    index: d.index,
    model: d.model,
    memory_bytes: d.memoryBytes ?? null,
    health: d.health,
  }));
  await tx.query(
    `DELETE FROM ${DEVICE_STATE.name} d WHERE d.node_id = $1 AND NOT EXISTS (
       SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS r(vendor text, index int) WHERE r.vendor = d.vendor AND r.index = d.index)`,
    [data.nodeId, JSON.stringify(devices)],
  );
  if (devices.length === 0) return true;
  await tx.query(
    `INSERT INTO ${DEVICE_STATE.name} (node_id, vendor, index, model, memory_bytes, health, registered_at, updated_at)
     SELECT $1, r.vendor, r.index, r.model, r.memory_bytes, r.health, $3, $3
     FROM jsonb_to_recordset($2::jsonb) AS r(vendor text, index int, model text, memory_bytes bigint, health int)
     ON CONFLICT (node_id, vendor, index) DO UPDATE SET model = EXCLUDED.model, memory_bytes = EXCLUDED.memory_bytes,
       health = EXCLUDED.health, registered_at = EXCLUDED.registered_at,
       updated_at = GREATEST(${DEVICE_STATE.name}.updated_at, EXCLUDED.updated_at)`,
    [data.nodeId, JSON.stringify(devices), at],
  );
  return true;
}

/**
 * The newest heartbeat with device usage of each node in a batch, among those after the node's last registration
 * in it (registrations are applied first; an older heartbeat must not overwrite what a newer registration says).
 */
function latestDeviceHeartbeats(events: readonly RecordedHcnEvent[]): Map<string, Heartbeat> {
  const latest = new Map<string, Heartbeat>();
  for (const e of events) {
    if (e.type === 'NodeRegistered' || e.type === 'NodeReregistered') latest.delete(e.data.nodeId);
    else if (e.type === 'NodeHeartbeatRecorded' && e.data.devices?.length) latest.set(e.data.nodeId, e);
  }
  return latest;
}

/** Applies the newest heartbeat of each node with device usage in one statement (guarded by seq: replays are no-ops). */
async function applyHeartbeats(tx: EntityManager, events: readonly RecordedHcnEvent[]): Promise<Set<string>> {
  const latest = latestDeviceHeartbeats(events);
  if (latest.size === 0) return new Set();
  const rows = [...latest.values()].flatMap((e) => {
    const data = e.data;
    return (data.devices ?? []).map((d) => ({
      node_id: data.nodeId,
      vendor: d.vendor ?? null,
      index: d.index,
      seq: data.seq,
      utilization: d.utilization,
      mem: d.memoryUsedBytes,
      temp: d.temperatureC ?? null,
      health: d.health,
      at: e.recordedAt,
    }));
  });
  // A usage without a vendor names the node's only device with that index (single-vendor nodes).
  await tx.query(
    `UPDATE ${DEVICE_STATE.name} s SET utilization = h.utilization, memory_used_bytes = h.mem, temperature_c = h.temp,
       health = h.health, last_heartbeat_seq = h.seq, updated_at = GREATEST(s.updated_at, h.at)
     FROM jsonb_to_recordset($1::jsonb) AS h(node_id uuid, vendor text, index int, seq int,
       utilization double precision, mem bigint, temp double precision, health int, at timestamptz)
     WHERE s.node_id = h.node_id AND s.index = h.index AND (h.vendor IS NULL OR s.vendor = h.vendor)
       AND (s.last_heartbeat_seq IS NULL OR s.last_heartbeat_seq < h.seq)`,
    [JSON.stringify(rows)],
  );
  return new Set(latest.keys());
}

/**
 * Projection of node registrations and heartbeats into device_state: each device of each node with its latest
 * utilization, memory in use, temperature and health.
 */
export const deviceStateProjection: Projection = {
  name: 'device-state',
  filter: {
    kind: 'eventTypePrefix',
    prefixes: ['NodeRegistered', 'NodeReregistered', 'NodeHeartbeatRecorded'],
  },
  tables: [DEVICE_STATE.name, 'device_registrations'],
  async apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void> {
    for (const e of events) {
      if (e.type !== 'NodeRegistered' && e.type !== 'NodeReregistered') continue;
      if (await applyRegistration(tx, e)) changes.nodes.add(e.data.nodeId);
    }
    for (const nodeId of await applyHeartbeats(tx, events)) changes.nodes.add(nodeId);
  },
};
