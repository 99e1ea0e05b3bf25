import { z } from '@hcn/contracts';
import { defineTable } from './table';

/**
 * One device_state row (projection of node registrations and heartbeats): an accelerator device of a node, what it
 * is (from the registration) and its latest usage (from the newest heartbeat, guarded by its seq).
 */
export interface DeviceStateRecord {
  node_id: string;
  vendor: string;
  index: number;
  model: string;
  /** bigint: read back as text by pg. */
  memory_bytes: number | string | null;
  health: number;
  utilization: number | null;
  /** bigint: read back as text by pg. */
  memory_used_bytes: number | string | null;
  temperature_c: number | null;
  last_heartbeat_seq: number | null;
  registered_at: string;
  updated_at: string;
}

/** The device_state table (its index is in the migration). */
export const DEVICE_STATE = defineTable<DeviceStateRecord>({
  name: 'device_state',
  key: ['node_id', 'vendor', 'index'],
  columns: {
    node_id: 'uuid',
    vendor: 'text',
    index: 'int',
    model: 'text',
    memory_bytes: 'bigint',
    health: 'int',
    utilization: 'double precision',
    memory_used_bytes: 'bigint',
    temperature_c: 'double precision',
    last_heartbeat_seq: 'int',
    registered_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
});

/** The node columns `GET /v1/devices` joins to each device row. */
export interface DeviceNodeColumns {
  hostname: string;
  domain_id: string;
  node_status: string;
}

/** One accelerator device as `GET /v1/devices` lists it. */
export const deviceStateViewSchema = z
  .object({
    nodeId: z.string(),
    hostname: z.string(),
    domainId: z.string(),
    nodeStatus: z.string(),
    vendor: z.string(),
    index: z.number().int(),
    model: z.string(),
    memoryBytes: z.number().nullable(),
    health: z.number().describe('0-100'),
    utilization: z.number().nullable().describe('0-1, from the latest heartbeat'),
    memoryUsedBytes: z.number().nullable(),
    temperatureC: z.number().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Device' });

/** One accelerator device as `GET /v1/devices` lists it (see deviceStateViewSchema). */
export type DeviceStateView = z.output<typeof deviceStateViewSchema>;

const numberOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** Maps a device_state row (as selected with `selectList`) and its node's columns to the view the API answers. */
export function deviceViewFromRow(r: DeviceStateRecord & DeviceNodeColumns): DeviceStateView {
  return {
    nodeId: r.node_id,
    hostname: r.hostname,
    domainId: r.domain_id,
    nodeStatus: r.node_status,
    vendor: r.vendor,
    index: r.index,
    model: r.model,
    memoryBytes: numberOrNull(r.memory_bytes),
    health: r.health,
    utilization: numberOrNull(r.utilization),
    memoryUsedBytes: numberOrNull(r.memory_used_bytes),
    temperatureC: numberOrNull(r.temperature_c),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}
