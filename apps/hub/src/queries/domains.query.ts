import { domainDefinitionSchema, domainIdSchema, z } from '@hcn/contracts';
import type { DataSource } from 'typeorm';
import { pageOf } from '../common/api-answer';
import type { Key } from './cursor';
import { Conditions, Page, booleanParam, listPage, pageShape, repeatable, sortShape } from './list-query';

/** Sort fields of `GET /v1/domains`, the default first. */
export const DOMAIN_SORTS = [
  'domainId',
  'nodesOnline',
  'cpuAvailable',
  'memoryAvailable',
  'cpuAllocatable',
  'memoryAllocatable',
  'acceleratorsAllocatable',
] as const;

const number = (sql: string): Key => ({ sql, type: 'numeric' });
const SORT: Record<(typeof DOMAIN_SORTS)[number], Key> = {
  domainId: { sql: 'domain_id', type: 'text' },
  nodesOnline: number('nodes_online'),
  cpuAvailable: number('cpu_millis_available'),
  memoryAvailable: number('memory_bytes_available'),
  cpuAllocatable: number('cpu_millis_allocatable'),
  memoryAllocatable: number('memory_bytes_allocatable'),
  acceleratorsAllocatable: number('accelerators_allocatable'),
};

/** Query parameters of `GET /v1/domains`. */
export const listDomainsQuerySchema = z
  .object({
    /** Children of this domain. */
    parentId: domainIdSchema.optional(),
    region: z.string().max(63).optional(),
    /** Only defined domains (true) or only those known from their nodes alone (false). */
    defined: booleanParam.optional(),
    /** Domains offering every one of these resource tags (`arch=amd64`, `gpu=a100`; repeatable). */
    tag: repeatable(z.string().regex(/^[^=]+=.*$/, 'resource tags look like key=value')),
    ...sortShape(DOMAIN_SORTS, 'domainId'),
    ...pageShape,
  })
  .strict();

/** Capacity of one resource: everything, what reservations hold, what schedulable nodes have left. */
const capacitySchema = z.object({ total: z.number(), allocated: z.number(), allocatable: z.number() }).meta({
  id: 'Capacity',
  description: 'everything, what reservations hold, what schedulable nodes have left',
});

/** A domain summary as `GET /v1/domains` shows it. */
export const domainViewSchema = z
  .object({
    domainId: z.string(),
    nodes: z.object({ online: z.number().int(), offline: z.number().int(), draining: z.number().int() }),
    capacity: z
      .object({
        cpuCores: z.object({ total: z.number(), available: z.number() }),
        cpuMillis: capacitySchema,
        memoryBytes: capacitySchema.extend({ available: z.number() }),
        accelerators: capacitySchema,
      })
      .describe(
        '`available` is idle capacity from heartbeats; allocated / allocatable come from reservations',
      ),
    resourceTags: z.array(z.string()),
    reserved: z.object({ cpuMillis: z.number(), memoryBytes: z.number(), accelerators: z.number() }),
    definition: z
      .object({
        parentId: z.string().nullable(),
        region: z.string().nullable(),
        labels: z.record(z.string(), z.string()),
        policy: z.string().nullable(),
        headNodeId: z.string().nullable(),
      })
      .nullable()
      .describe('null: a domain known from its nodes alone'),
  })
  .meta({ id: 'DomainSummary' });

/** A domain summary as `GET /v1/domains` shows it (see domainViewSchema). */
export type DomainView = z.output<typeof domainViewSchema>;

/** One page of `GET /v1/domains`. */
export const domainPageSchema = pageOf(domainViewSchema, 'DomainSummaryPage');

/** One domain as `GET /v1/domains/:id` answers it: its definition and its stream's revision. */
export const domainSchema = domainDefinitionSchema
  .extend({ revision: z.number().int() })
  .meta({ id: 'Domain' });

type Row = Record<string, unknown>;

function toView(r: Row): DomainView {
  const reserved = {
    cpuMillis: Number(r.reserved_cpu_millis ?? 0),
    memoryBytes: Number(r.reserved_memory_bytes ?? 0),
    accelerators: Number(r.reserved_accelerators ?? 0),
  };
  return {
    domainId: r.domain_id as string,
    nodes: {
      online: Number(r.nodes_online),
      offline: Number(r.nodes_offline),
      draining: Number(r.nodes_draining),
    },
    capacity: {
      cpuCores: { total: Number(r.cpu_cores_total), available: Number(r.cpu_millis_available) / 1000 },
      cpuMillis: {
        total: Number(r.cpu_millis_total),
        allocated: reserved.cpuMillis,
        allocatable: Number(r.cpu_millis_allocatable),
      },
      memoryBytes: {
        total: Number(r.memory_bytes_total),
        available: Number(r.memory_bytes_available),
        allocated: reserved.memoryBytes,
        allocatable: Number(r.memory_bytes_allocatable),
      },
      accelerators: {
        total: Number(r.accelerators_total),
        allocated: reserved.accelerators,
        allocatable: Number(r.accelerators_allocatable),
      },
    },
    resourceTags: r.resource_tags as string[],
    reserved,
    definition: r.defined
      ? {
          parentId: r.parent_id as string | null,
          region: r.region as string | null,
          labels: r.labels as Record<string, string>,
          policy: r.policy as string | null,
          headNodeId: r.head_node_id as string | null,
        }
      : null,
  };
}

/** Domain summaries from the domain_summary read model, filtered, sorted and paged, with the count of matches. */
export async function listDomains(
  db: DataSource,
  query: z.output<typeof listDomainsQuerySchema>,
): Promise<Page<DomainView>> {
  const c = new Conditions();
  if (query.parentId) c.add('parent_id = ?', query.parentId);
  if (query.region) c.add('region = ?', query.region);
  if (query.defined !== undefined) c.add('defined = ?', query.defined);
  if (query.tag.length > 0) c.add('resource_tags @> ?::jsonb', JSON.stringify(query.tag));
  const page = await listPage<Row>(db, {
    columns: '*',
    from: 'domain_summary',
    where: c,
    keyset: {
      sortName: query.sort,
      sort: SORT[query.sort],
      order: query.order,
      ties: [{ sql: 'domain_id', type: 'text' }],
    },
    page: query,
  });
  return { ...page, items: page.items.map(toView) };
}
