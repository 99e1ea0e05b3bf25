import {
  AcceleratorDevice,
  HcnError,
  acceleratorDeviceSchema,
  deviceAllocationStateSchema,
  z,
} from '@hcn/contracts';
import {
  NODE_RUNTIME_COLUMNS,
  NODE_RUNTIME_STATES,
  nodeRuntimeFromRow,
  nodeRuntimeSchema,
} from '@hcn/read-models';
import { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import type { Key } from './cursor';
import { Conditions, Page, listPage, pageShape, repeatable, sortShape } from './list-query';

/** Sort fields of `GET /v1/nodes`, the default first. */
export const NODE_SORTS = ['hostname', 'lastSeenAt', 'registeredAt', 'cpuUsage'] as const;

/** Query parameters of `GET /v1/nodes`. */
export const listNodesQuerySchema = z
  .object({
    /** Only these nodes (repeatable; the dashboard refetches the rows the change feed names). */
    id: repeatable(z.string().uuid(), 1000),
    domain: z.string().max(63).optional(),
    status: z.enum(['online', 'offline', 'deregistered']).optional(),
    /** The node's runtime state: running (allocations active), error (its last one failed), idle. */
    runtime: z.enum(NODE_RUNTIME_STATES).optional(),
    label: repeatable(z.string().regex(/^[^=]+=.*$/, 'label filters look like key=value'), 100),
    ...sortShape(NODE_SORTS, 'hostname'),
    ...pageShape,
  })
  .strict();

const SORT: Record<(typeof NODE_SORTS)[number], Key> = {
  hostname: { sql: 'n.hostname', type: 'text' },
  lastSeenAt: { sql: 'n.last_seen_at', type: 'timestamptz' },
  registeredAt: { sql: 'n.registered_at', type: 'timestamptz' },
  cpuUsage: { sql: 'n.cpu_usage', type: 'numeric' },
};

/** A node as the API shows it (the list's items and `GET /v1/nodes/:id`). */
export const nodeViewSchema = z
  .object({
    nodeId: z.string(),
    domainId: z.string(),
    hostname: z.string(),
    arch: z.string(),
    os: z.string(),
    cpuCores: z.number(),
    memoryBytes: z.number(),
    diskBytes: z.number(),
    accelerators: z.number().int().describe('schedulable accelerator devices'),
    devices: z
      .array(
        acceleratorDeviceSchema.extend({ allocation: deviceAllocationStateSchema }).meta({
          id: 'NodeDevice',
          description: 'a device (vendor, model, memory, health) and who holds it',
        }),
      )
      .describe('the devices behind `accelerators`'),
    labels: z.record(z.string(), z.string()),
    isHead: z.boolean(),
    agentVersion: z.string(),
    status: z.enum(['online', 'offline', 'deregistered']),
    draining: z.boolean(),
    stopRequested: z.boolean(),
    registeredAt: z.string(),
    lastSeenAt: z.string().nullable(),
    usage: z
      .object({ cpuUsage: z.number(), memoryUsedBytes: z.number(), diskUsedBytes: z.number() })
      .nullable()
      .describe('from the latest heartbeat; null before the first'),
    runtime: nodeRuntimeSchema.describe(
      "what runs on the node (GridCore's runtime status): state, active allocations, the last failure",
    ),
  })
  .meta({ id: 'Node' });

/** A node as the API shows it (see nodeViewSchema). */
export type NodeView = z.output<typeof nodeViewSchema>;

/** One page of `GET /v1/nodes`. */
export const nodePageSchema = pageOf(nodeViewSchema, 'NodePage');

/** node_state `n` with each node's runtime from node_runtime `r` (the workloads projection's). */
const NODES_FROM = 'node_state n LEFT JOIN node_runtime r USING (node_id)';
const NODE_COLUMNS = `n.*, ${NODE_RUNTIME_COLUMNS}`;

type Row = Record<string, unknown>;

type Grants = Map<
  string,
  Array<{ allocationId: string; index: number; vendor: string; sliceMemoryBytes?: number }>
>;

/** Unreleased device grants of the given nodes, by node id (from node_reservation). */
async function deviceGrants(db: DataSource, nodeIds: string[]): Promise<Grants> {
  const grants: Grants = new Map();
  if (nodeIds.length === 0) return grants;
  const rows: Row[] = await db.query(
    `SELECT node_id, allocation_id, devices FROM node_reservation
     WHERE node_id = ANY($1::uuid[]) AND NOT released AND devices <> '[]'::jsonb`,
    [nodeIds],
  );
  for (const row of rows) {
    const list = grants.get(row.node_id as string) ?? [];
    for (const g of row.devices as Array<{ index: number; vendor: string; sliceMemoryBytes?: number }>)
      list.push({ allocationId: row.allocation_id as string, ...g });
    grants.set(row.node_id as string, list);
  }
  return grants;
}

/** Each device with its allocation state. */
function withAllocations(
  devices: AcceleratorDevice[],
  grants: ReturnType<Grants['get']>,
): NodeView['devices'] {
  return devices.map((d) => {
    const mine = (grants ?? []).filter((g) => g.index === d.index && g.vendor === d.vendor);
    const whole = mine.find((g) => g.sliceMemoryBytes === undefined);
    const slices = mine
      .filter((g) => g.sliceMemoryBytes !== undefined)
      .map((g) => ({ allocationId: g.allocationId, memoryBytes: g.sliceMemoryBytes! }))
      .sort((a, b) => (a.allocationId < b.allocationId ? -1 : 1));
    return {
      ...d,
      allocation: {
        index: d.index,
        wholeDevice: whole !== undefined,
        allocationId: whole?.allocationId ?? null,
        slices,
      },
    };
  });
}

/** Views of node rows with their devices' allocation state. */
async function toViews(db: DataSource, rows: Row[]): Promise<NodeView[]> {
  const withDevices = rows.filter((r) => ((r.devices as unknown[] | undefined) ?? []).length > 0);
  const grants = await deviceGrants(
    db,
    withDevices.map((r) => r.node_id as string),
  );
  return rows.map((row) => toView(row, grants.get(row.node_id as string)));
}

function toView(row: Row, grants: ReturnType<Grants['get']>): NodeView {
  const iso = (v: unknown): string | null => (v ? new Date(v as string).toISOString() : null);
  return {
    nodeId: row.node_id as string,
    domainId: row.domain_id as string,
    hostname: row.hostname as string,
    arch: row.arch as string,
    os: row.os as string,
    cpuCores: Number(row.cpu_cores),
    memoryBytes: Number(row.memory_bytes),
    diskBytes: Number(row.disk_bytes),
    accelerators: Number(row.accelerators ?? 0),
    devices: withAllocations((row.devices as AcceleratorDevice[] | undefined) ?? [], grants),
    labels: row.labels as Record<string, string>,
    isHead: row.is_head as boolean,
    agentVersion: row.agent_version as string,
    status: row.status as NodeView['status'],
    draining: row.draining as boolean,
    stopRequested: row.stop_requested as boolean,
    registeredAt: iso(row.registered_at) as string,
    lastSeenAt: iso(row.last_seen_at),
    usage:
      row.cpu_usage === null
        ? null
        : {
            cpuUsage: Number(row.cpu_usage),
            memoryUsedBytes: Number(row.memory_used_bytes),
            diskUsedBytes: Number(row.disk_used_bytes),
          },
    runtime: nodeRuntimeFromRow(row),
  };
}

/** Lists nodes from the node_state read model (with their runtime) with filters, sorting and cursor pagination. */
export async function listNodes(
  db: DataSource,
  query: z.output<typeof listNodesQuerySchema>,
): Promise<Page<NodeView>> {
  const c = new Conditions();
  if (query.id.length > 0) c.add('node_id = ANY(?::uuid[])', query.id);
  if (query.domain) c.add('domain_id = ?', query.domain);
  if (query.status) c.add('status = ?', query.status);
  if (query.runtime) c.add(`COALESCE(r.state, 'idle') = ?`, query.runtime);
  for (const label of query.label) {
    const [key, ...rest] = label.split('=');
    c.add('labels @> ?::jsonb', JSON.stringify({ [key]: rest.join('=') }));
  }
  const page = await listPage<Row>(db, {
    columns: NODE_COLUMNS,
    from: NODES_FROM,
    where: c,
    keyset: {
      sortName: query.sort,
      sort: SORT[query.sort],
      order: query.order,
      ties: [{ sql: 'n.node_id', type: 'uuid' }],
    },
    page: query,
  });
  return { ...page, items: await toViews(db, page.items) };
}

/** One node from node_state, or NODE.NOT_FOUND. */
export async function getNode(db: DataSource, nodeId: string): Promise<NodeView> {
  const rows: Row[] = await db.query(`SELECT ${NODE_COLUMNS} FROM ${NODES_FROM} WHERE node_id = $1`, [
    nodeId,
  ]);
  if (rows.length === 0) throw new HcnError('NODE.NOT_FOUND', `Node ${nodeId} is not known`, { nodeId });
  return (await toViews(db, rows))[0];
}
