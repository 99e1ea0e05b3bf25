import type { SiteState } from '@hcn/domain';
import type { SiteSummary } from '@hcn/contracts';
import { defineTable } from './table';

/** One site_state row (projection of site-* and sitesummary-* streams), times as ISO-8601 text. */
export interface SiteStateRecord {
  site_id: string;
  /** unknown, invited, online, offline or deregistered (the site decider's status). */
  status: string;
  /** child (registered with this site), member (known through gossip) or none (only invited). */
  relation: string;
  name: string | null;
  url: string | null;
  regions: string[];
  /** The site decider's folded state, from which the columns above are mapped. */
  state: SiteState;
  /** The last summary recorded (children only), and when it arrived. */
  summary: SiteSummary | null;
  summary_at: string | null;
  updated_at: string;
  /** Revision in the site's stream of the last event applied (a replayed event changes nothing). */
  last_revision: number;
  /** Revision in the site's summary stream of the last summary applied. */
  summary_revision: number;
}

/** The site_state table: one row per federation site this site knows. */
export const SITE_STATE = defineTable<SiteStateRecord>({
  name: 'site_state',
  key: 'site_id',
  columns: {
    site_id: 'text',
    status: 'text',
    relation: 'text',
    name: 'text',
    url: 'text',
    regions: 'jsonb',
    state: 'jsonb',
    summary: 'jsonb',
    summary_at: 'timestamptz',
    updated_at: 'timestamptz',
    last_revision: 'int',
    summary_revision: 'int',
  },
});
