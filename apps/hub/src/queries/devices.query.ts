import { acceleratorVendorSchema, z } from '@hcn/contracts';
import {
  DEVICE_STATE,
  DeviceNodeColumns,
  DeviceStateRecord,
  DeviceStateView,
  deviceStateViewSchema,
  deviceViewFromRow,
  selectList,
} from '@hcn/read-models';
import { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import type { Key } from './cursor';
import { Conditions, Page, listPage, pageShape, sortShape } from './list-query';

/** One page of `GET /v1/devices`. */
export const devicePageSchema = pageOf(deviceStateViewSchema, 'DevicePage');

/** Sort fields of `GET /v1/devices`, the default first. */
export const DEVICE_SORTS = ['hostname', 'utilization', 'memoryUsed', 'health', 'temperature'] as const;

/** Query parameters of `GET /v1/devices`. */
export const listDevicesQuerySchema = z
  .object({
    nodeId: z.string().uuid().optional(),
    domain: z.string().max(63).optional(),
    vendor: acceleratorVendorSchema.optional(),
    model: z.string().max(128).optional(),
    /** Devices whose health is at most this (0-100): the unhealthy ones. */
    maxHealth: z.coerce.number().int().min(0).max(100).optional(),
    /** Devices at least this busy (0-1). */
    minUtilization: z.coerce.number().min(0).max(1).optional(),
    ...sortShape(DEVICE_SORTS, 'hostname'),
    ...pageShape,
  })
  .strict();

const SORT: Record<(typeof DEVICE_SORTS)[number], Key> = {
  hostname: { sql: 'n.hostname', type: 'text' },
  utilization: { sql: 'd.utilization', type: 'numeric' },
  memoryUsed: { sql: 'd.memory_used_bytes', type: 'numeric' },
  health: { sql: 'd.health', type: 'numeric' },
  temperature: { sql: 'd.temperature_c', type: 'numeric' },
};
const TIES: Key[] = [
  { sql: 'd.node_id', type: 'uuid' },
  { sql: 'd.vendor', type: 'text' },
  { sql: 'd.index', type: 'numeric' },
];

/** Lists devices from the device_state read model (with their node's host, domain and status). */
export async function listDevices(
  db: DataSource,
  query: z.output<typeof listDevicesQuerySchema>,
): Promise<Page<DeviceStateView>> {
  const c = new Conditions();
  if (query.nodeId) c.add('d.node_id = ?', query.nodeId);
  if (query.domain) c.add('n.domain_id = ?', query.domain);
  if (query.vendor) c.add('d.vendor = ?', query.vendor);
  if (query.model) c.add('d.model = ?', query.model);
  if (query.maxHealth !== undefined) c.add('d.health <= ?', query.maxHealth);
  if (query.minUtilization !== undefined) c.add('d.utilization >= ?', query.minUtilization);
  const page = await listPage<DeviceStateRecord & DeviceNodeColumns>(db, {
    columns: `${selectList(DEVICE_STATE, undefined, 'd')}, n.hostname, n.domain_id, n.status AS node_status`,
    from: `${DEVICE_STATE.name} d JOIN node_state n ON n.node_id = d.node_id`,
    where: c,
    keyset: { sortName: query.sort, sort: SORT[query.sort], order: query.order, ties: TIES },
    page: query,
  });
  return { ...page, items: page.items.map(deviceViewFromRow) };
}
