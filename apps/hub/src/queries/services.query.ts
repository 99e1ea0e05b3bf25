import {
  namespaceSchema,
  parseOrThrow,
  servicePortsOf,
  z,
  type PortMapping,
  type WorkloadSpec,
} from '@hcn/contracts';
import type { WorkloadState } from '@hcn/domain';
import { StoredWorkloadState, WORKLOAD_STATE, selectList } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { Conditions, limitOffset, pageShape } from './list-query';
import { NodeAddresses, ServiceView, serviceView } from './service-view';
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
export interface ServiceListItem extends ServiceView {
  workloadId: string;
  namespace: string;
  name: string;
  status: string;
  generation: number;
  ports: PortMapping[];
  updatedAt: string;
}

/** One page of services, by namespace and name. */
export interface ServicePage {
  items: ServiceListItem[];
  total: number;
  limit: number;
  offset: number;
}

interface Row {
  workload_id: string;
  namespace: string;
  name: string;
  status: string;
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
): Promise<ServicePage> {
  const { namespaces, ...raw } = input;
  const query = parseOrThrow(listServicesQuerySchema, raw, 'SERVICES.QUERY', 'Query');
  const scope = parseOrThrow(namespaceScopeSchema, namespaces, 'SERVICES.SCOPE', 'Namespaces');
  const page = { limit: query.limit, offset: query.offset };
  if (scope !== '*' && scope.length === 0) return { items: [], total: 0, ...page };
  const c = new Conditions();
  c.where.push(`type IN ('service', 'model')`, 'NOT deleted');
  if (scope !== '*') c.add('namespace = ANY(?::text[])', scope);
  if (query.namespace) c.add('namespace = ?', query.namespace);
  if (query.name) c.add('name = ?', query.name);
  const [rows, total]: [Row[], Array<{ n: number }>] = await Promise.all([
    db.query(
      `SELECT ${COLUMNS} FROM workload_state ${c.clause()} ORDER BY namespace, name, workload_id ${limitOffset(query)}`,
      c.params,
    ),
    db.query(`SELECT count(*)::int AS n FROM workload_state ${c.clause()}`, c.params),
  ]);
  return { items: rows.map((row) => serviceItem(row, addressOf)), total: total[0].n, ...page };
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
