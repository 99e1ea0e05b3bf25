import { SITE_PLACE_PREFIX, ValidationError, namespaceSchema, z } from '@hcn/contracts';
import {
  DELEGATION_HOPS,
  DELEGATION_STEP_TYPES,
  DelegationHopRecord,
  DelegationStepView,
  delegationStepFromRow,
  delegationStepViewSchema,
  selectList,
} from '@hcn/read-models';
import { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import type { Key } from './cursor';
import { Conditions, Page, listPage, pageShape, repeatable, sortShape } from './list-query';
import type { NamespaceScope } from './workloads.query';

export type { DelegationStepView };

/** One page of `GET /v1/delegations`. */
export const delegationPageSchema = pageOf(delegationStepViewSchema, 'DelegationStepPage');

/** Sort fields of `GET /v1/delegations`, the default first. */
export const DELEGATION_SORTS = ['recordedAt', 'filtered', 'considered'] as const;

/** Query parameters of `GET /v1/delegations` (the caller's namespaces come from its token). */
export const listDelegationsQuerySchema = z
  .object({
    workloadId: z.string().uuid().optional(),
    namespace: namespaceSchema.optional(),
    /** delegated, rejected, placed, unschedulable (repeatable). */
    type: repeatable(z.enum(DELEGATION_STEP_TYPES)),
    /** The deciding scope: a hop's parent, a rejecting scope, a placement's domain. */
    scope: z.string().max(64).optional(),
    /** A hop's child domain or node, a placement's node. */
    target: z.string().max(64).optional(),
    /** A rejection reason (or one of an unschedulable verdict's reasons). */
    reason: z.string().max(64).optional(),
    since: z.string().datetime({ offset: true }).optional(),
    until: z.string().datetime({ offset: true }).optional(),
    ...sortShape(DELEGATION_SORTS, 'recordedAt', 'desc'),
    ...pageShape,
  })
  .strict();

const SORT: Record<(typeof DELEGATION_SORTS)[number], Key> = {
  recordedAt: { sql: 'recorded_at', type: 'timestamptz' },
  filtered: { sql: 'filtered', type: 'numeric' },
  considered: { sql: 'considered', type: 'numeric' },
};
const TIES: Key[] = [
  { sql: 'workload_id', type: 'uuid' },
  { sql: 'revision', type: 'numeric' },
  { sql: 'step', type: 'numeric' },
];

/** Lists delegation steps across workloads from delegation_hops (filters, sort, cursor pagination, namespace scope). */
export async function listDelegations(
  db: DataSource,
  query: z.output<typeof listDelegationsQuerySchema> & { namespaces: NamespaceScope },
): Promise<Page<DelegationStepView>> {
  const c = new Conditions();
  if (query.namespaces !== '*') c.add('namespace = ANY(?::text[])', query.namespaces);
  if (query.namespace) c.add('namespace = ?', query.namespace);
  if (query.workloadId) c.add('workload_id = ?', query.workloadId);
  if (query.type.length > 0) c.add('type = ANY(?::text[])', query.type);
  if (query.scope) c.add('scope = ?', query.scope);
  if (query.target) c.add('target = ?', query.target);
  if (query.reason) c.add(`(reason = ? OR ? = ANY(string_to_array(reason, ',')))`, query.reason);
  if (query.since) c.add('recorded_at >= ?', query.since);
  if (query.until) c.add('recorded_at < ?', query.until);
  const page = await listPage<DelegationHopRecord>(db, {
    columns: selectList(DELEGATION_HOPS),
    from: DELEGATION_HOPS.name,
    where: c,
    keyset: { sortName: query.sort, sort: SORT[query.sort], order: query.order, ties: TIES },
    page: query,
  });
  return {
    ...page,
    items: page.items.map(delegationStepFromRow),
  };
}

/** Query parameters of `GET /v1/delegations/sites`: the window (default the last hour) and its bucket size. */
export const siteTimelineQuerySchema = z
  .object({
    since: z.string().datetime({ offset: true }).optional(),
    until: z.string().datetime({ offset: true }).optional(),
    bucketSeconds: z.coerce.number().int().min(1).max(86_400).default(60),
  })
  .strict();

/** Hand-overs to other sites and their refusals, per site and time bucket (federation). */
export const siteTimelineSchema = z
  .object({
    since: z.string(),
    until: z.string(),
    bucketSeconds: z.number().int(),
    buckets: z.array(
      z.object({
        at: z.string().describe('start of the bucket'),
        siteId: z.string(),
        sent: z.number().int().describe('instances handed to the site'),
        rejected: z.number().int().describe('refusals or timeouts of the site'),
      }),
    ),
  })
  .meta({ id: 'SiteDelegationTimeline' });

/** Most buckets one timeline answers (the window divided by the bucket size). */
const MAX_TIMELINE_BUCKETS = 1000;

/**
 * Delegations between sites over time, from delegation_hops: per bucket and site, the instances handed to it
 * (`site` steps) and its refusals (`rejected` steps whose scope is `site:<id>`), within the caller's namespaces.
 */
export async function siteDelegationTimeline(
  db: DataSource,
  query: z.output<typeof siteTimelineQuerySchema> & { namespaces: NamespaceScope; now: Date },
): Promise<z.output<typeof siteTimelineSchema>> {
  const until = query.until ? new Date(query.until) : query.now;
  const since = query.since ? new Date(query.since) : new Date(until.getTime() - 3_600_000);
  const buckets = (until.getTime() - since.getTime()) / 1000 / query.bucketSeconds;
  if (!(buckets > 0) || buckets > MAX_TIMELINE_BUCKETS)
    throw new ValidationError(
      'DELEGATIONS.QUERY',
      `since must be before until, at most ${MAX_TIMELINE_BUCKETS} buckets of bucketSeconds apart`,
      [{ path: 'bucketSeconds', code: 'too_big', message: `${Math.ceil(buckets)} buckets in the window` }],
    );
  const rows: Array<{ at: Date; site: string; sent: string; rejected: string }> = await db.query(
    `SELECT to_timestamp(floor(extract(epoch FROM recorded_at) / $3) * $3) AS at,
            CASE WHEN type = 'site' THEN target ELSE scope END AS site,
            count(*) FILTER (WHERE type = 'site') AS sent, count(*) FILTER (WHERE type = 'rejected') AS rejected
     FROM delegation_hops
     WHERE recorded_at >= $1 AND recorded_at < $2 AND ($4::text[] IS NULL OR namespace = ANY($4::text[]))
       AND (type = 'site' OR (type = 'rejected' AND scope LIKE 'site:%'))
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [since, until, query.bucketSeconds, query.namespaces === '*' ? null : query.namespaces],
  );
  return {
    since: since.toISOString(),
    until: until.toISOString(),
    bucketSeconds: query.bucketSeconds,
    buckets: rows.map((r) => ({
      at: new Date(r.at).toISOString(),
      siteId: r.site.slice(SITE_PLACE_PREFIX.length),
      sent: Number(r.sent),
      rejected: Number(r.rejected),
    })),
  };
}
