import { HcnError, siteSummarySchema, z } from '@hcn/contracts';
import { SITE_STATE, SiteStateRecord, selectList } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import type { Keyset } from './cursor';
import { Conditions, Page, listPage, pageShape } from './list-query';
import { pageOf } from '../common/api-answer';

/** A federation site as the API shows it (digests of its secrets never included). */
export const siteViewSchema = z
  .object({
    siteId: z.string(),
    status: z.string().describe('unknown | invited | online | offline | deregistered'),
    relation: z.string().describe('child | member | none'),
    name: z.string().nullable(),
    url: z.string().nullable(),
    regions: z.array(z.string()),
    registeredAt: z.string().nullable(),
    discoveredVia: z.string().nullable(),
    lastSeenAt: z.string().nullable(),
    joinTokenExpiresAt: z
      .string()
      .nullable()
      .describe('until when its unspent join token is valid (invited sites)'),
    summary: siteSummarySchema.meta({ id: 'SiteSummary' }).nullable(),
    summaryAt: z.string().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Site' });

/** A federation site as the API shows it (see siteViewSchema). */
export type SiteView = z.output<typeof siteViewSchema>;

/** One page of `GET /v1/federation/sites`. */
export const sitePageSchema = pageOf(siteViewSchema, 'SitePage');

/** Query parameters of `GET /v1/federation/sites`. */
export const listSitesQuerySchema = z
  .object({
    status: z.enum(['invited', 'online', 'offline', 'deregistered']).optional(),
    relation: z.enum(['child', 'member', 'none']).optional(),
    ...pageShape,
  })
  .strict();

/** Sites by id (unique: the id is its own tie key). */
const KEYSET: Keyset = {
  sortName: 'siteId',
  sort: { sql: 'site_id', type: 'text' },
  order: 'asc',
  ties: [{ sql: 'site_id', type: 'text' }],
};

function viewOf(row: SiteStateRecord): SiteView {
  const { state } = row;
  return {
    siteId: row.site_id,
    status: row.status,
    relation: row.relation,
    name: row.name,
    url: row.url,
    regions: row.regions,
    registeredAt: state.registration?.registeredAt ?? null,
    discoveredVia: state.discovered?.via ?? null,
    lastSeenAt: state.lastSeenAt ?? null,
    joinTokenExpiresAt: state.joinToken?.expiresAt ?? null,
    summary: row.summary,
    summaryAt: row.summary_at ? new Date(row.summary_at).toISOString() : null,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** One page of the sites this site knows, by id (filtered by status and relation), with the count of matches. */
export async function listSites(
  db: DataSource,
  query: z.output<typeof listSitesQuerySchema>,
): Promise<Page<SiteView>> {
  const c = new Conditions();
  if (query.status) c.add('status = ?', query.status);
  if (query.relation) c.add('relation = ?', query.relation);
  const page = await listPage<SiteStateRecord>(db, {
    columns: selectList(SITE_STATE),
    from: 'site_state',
    where: c,
    keyset: KEYSET,
    page: query,
  });
  return { ...page, items: page.items.map(viewOf) };
}

/** One site with the revision of its stream the read model folded (its ETag); SITE.NOT_FOUND when unknown. */
export async function loadSite(
  db: DataSource,
  siteId: string,
): Promise<{ site: SiteView; revision: number }> {
  const rows: SiteStateRecord[] = await db.query(
    `SELECT ${selectList(SITE_STATE)} FROM site_state WHERE site_id = $1`,
    [siteId],
  );
  if (!rows[0]) throw new HcnError('SITE.NOT_FOUND', `Site ${siteId} is not known`, { siteId });
  return { site: viewOf(rows[0]), revision: Number(rows[0].last_revision) };
}
