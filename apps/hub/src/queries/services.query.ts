import {
  namespaceSchema,
  parseOrThrow,
  portMappingSchema,
  servicePortsOf,
  z,
  type WorkloadSpec,
} from '@hcn/contracts';
import type { WorkloadState } from '@hcn/domain';
import {
  StoredWorkloadState,
  WORKLOAD_STATE,
  WORKLOAD_STATUSES,
  WorkloadStatus,
  selectList,
} from '@hcn/read-models';
import { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import type { Keyset } from './cursor';
import { Conditions, Page, listPage, pageShape } from './list-query';
import { NodeAddresses, serviceView, serviceViewSchema } from './service-view';
import { NamespaceScope, namespaceScopeSchema } from './workloads.query';

/** Query parameters of `GET /v1/services` (the caller's namespaces come from its token). */
export const listServicesQuerySchema = z
  .object({
    namespace: namespaceSchema.optional(),
    /** A service's name, exactly (services are found by name). */
    name: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/, 'a workload name')
      .optional(),
    ...pageShape,
  })
  .strict();

/** A service as `GET /v1/services` lists it: the workload, its named ports, its ready replicas and endpoints. */
export const serviceListItemSchema = serviceViewSchema
  .extend({
    workloadId: z.string(),
    namespace: z.string(),
    name: z.string(),
    status: z.enum(WORKLOAD_STATUSES),
    generation: z.number().int(),
    ports: z.array(portMappingSchema),
    updatedAt: z.string(),
  })
  .meta({ id: 'Service' });

/** A service as `GET /v1/services` lists it (see serviceListItemSchema). */
export type ServiceListItem = z.output<typeof serviceListItemSchema>;

/** One page of `GET /v1/services`. */
export const servicePageSchema = pageOf(serviceListItemSchema, 'ServicePage');

/** Services by namespace, then name. */
const KEYSET: Keyset = {
  sortName: 'namespace',
  sort: { sql: 'namespace', type: 'text' },
  order: 'asc',
  ties: [
    { sql: 'name', type: 'text' },
    { sql: 'workload_id', type: 'uuid' },
  ],
};

interface Row {
  workload_id: string;
  namespace: string;
  name: string;
  status: WorkloadStatus;
  generation: number;
  spec: WorkloadSpec;
  state: StoredWorkloadState;
  updated_at: string;
}

const COLUMNS = selectList(WORKLOAD_STATE, [
  'workload_id',
  'namespace',
  'name',
  'status',
  'generation',
  'spec',
  'state',
  'updated_at',
]);

/**
 * Lists the services (workloads of type `service`, not deleted) of the namespaces the caller may see, from the
 * workload_state read model (the domain's folded state: readiness included), with their endpoints: `host:port` of
 * every ready replica per named port, hosts as the nodes registered them.
 */
export async function listServices(
  db: DataSource,
  input: z.input<typeof listServicesQuerySchema> & { namespaces: NamespaceScope },
  addressOf: NodeAddresses,
): Promise<Page<ServiceListItem>> {
  const { namespaces, ...raw } = input;
  const query = parseOrThrow(listServicesQuerySchema, raw, 'SERVICES.QUERY', 'Query');
  const scope = parseOrThrow(namespaceScopeSchema, namespaces, 'SERVICES.SCOPE', 'Namespaces');
  if (scope !== '*' && scope.length === 0) return { items: [], nextCursor: null, total: 0 };
  const c = new Conditions();
  c.where.push(`type IN ('service', 'model')`, 'NOT deleted');
  if (scope !== '*') c.add('namespace = ANY(?::text[])', scope);
  if (query.namespace) c.add('namespace = ?', query.namespace);
  if (query.name) c.add('name = ?', query.name);
  const page = await listPage<Row>(db, {
    columns: COLUMNS,
    from: 'workload_state',
    where: c,
    keyset: KEYSET,
    page: query,
  });
  return { ...page, items: page.items.map((row) => serviceItem(row, addressOf)) };
}

function serviceItem(row: Row, addressOf: NodeAddresses): ServiceListItem {
  const state: WorkloadState = { ...row.state, spec: row.spec };
  const view = serviceView(state, addressOf);
  return {
    workloadId: row.workload_id,
    namespace: row.namespace,
    name: row.name,
    status: row.status,
    generation: row.generation,
    ports: [...servicePortsOf(row.spec)],
    ...(view ?? {
      runtime: 'process',
      replicas: row.spec.replicas,
      readyReplicas: 0,
      endpoints: {},
      ready: [],
    }),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
