import { HcnError, SiteSummary, z } from '@hcn/contracts';
import { SITE_STATE, SiteStateRecord, selectList } from '@hcn/read-models';
import type { DataSource } from 'typeorm';

/** Most sites one listing returns (federations are tens of sites, not thousands). */
const MAX_SITES = 1000;

/** A federation site as the API shows it (digests of its secrets never included). */
export interface SiteView {
  siteId: string;
  status: string;
  relation: string;
  name: string | null;
  url: string | null;
  regions: string[];
  registeredAt: string | null;
  discoveredVia: string | null;
  lastSeenAt: string | null;
  /** Until when its unspent join token is valid (invited sites). */
  joinTokenExpiresAt: string | null;
  summary: SiteSummary | null;
  summaryAt: string | null;
  updatedAt: string;
}

/** Query parameters of `GET /v1/federation/sites`. */
export const listSitesQuerySchema = z
  .object({
    status: z.enum(['invited', 'online', 'offline', 'deregistered']).optional(),
    relation: z.enum(['child', 'member', 'none']).optional(),
  })
  .strict();

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

/** The sites this site knows, by id (filtered by status and relation). */
export async function listSites(
  db: DataSource,
  query: z.output<typeof listSitesQuerySchema>,
): Promise<{ items: SiteView[]; nextCursor: null; total: number }> {
  const where: string[] = [];
  const params: string[] = [];
  if (query.status) where.push(`status = $${params.push(query.status)}`);
  if (query.relation) where.push(`relation = $${params.push(query.relation)}`);
  const rows: SiteStateRecord[] = await db.query(
    `SELECT ${selectList(SITE_STATE)} FROM site_state ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY site_id LIMIT ${MAX_SITES}`,
    params,
  );
  return { items: rows.map(viewOf), nextCursor: null, total: rows.length };
}

/** One site; SITE.NOT_FOUND when this site does not know it. */
export async function loadSite(db: DataSource, siteId: string): Promise<SiteView> {
  const rows: SiteStateRecord[] = await db.query(
    `SELECT ${selectList(SITE_STATE)} FROM site_state WHERE site_id = $1`,
    [siteId],
  );
  if (!rows[0]) throw new HcnError('SITE.NOT_FOUND', `Site ${siteId} is not known`, { siteId });
  return viewOf(rows[0]);
}
