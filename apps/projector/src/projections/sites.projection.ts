import { RecordedEventOf, RecordedHcnEvent, isEventOf, isEventOfTypes } from '@hcn/contracts';
import { SiteEvent, siteDecider, siteRelation } from '@hcn/domain';
import { SITE_STATE, SiteStateRecord, selectList, upsertRows } from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

type RecordedSiteEvent = RecordedEventOf<SiteEvent['type']>;
type RecordedSummary = RecordedEventOf<'SiteSummaryRecorded'>;

async function loadRows(tx: EntityManager, ids: readonly string[]): Promise<Map<string, SiteStateRecord>> {
  const rows: SiteStateRecord[] = await tx.query(
    `SELECT ${selectList(SITE_STATE)} FROM site_state WHERE site_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.site_id, r]));
}

/** A site's row after one more event of its stream, folded with the domain's evolve and mapped. */
function applied(row: SiteStateRecord | undefined, event: RecordedSiteEvent): SiteStateRecord {
  if (row && event.revision <= row.last_revision) return row; // replayed: already folded
  const state = siteDecider.evolve(row?.state ?? siteDecider.initialState, event);
  const known = state.registration ?? state.discovered;
  return {
    site_id: event.data.siteId,
    status: state.status,
    relation: siteRelation(state),
    name: state.registration?.name ?? null,
    url: state.registration?.url ?? state.discovered?.url ?? null,
    regions: state.registration?.regions ?? [],
    state,
    summary: known ? (row?.summary ?? null) : null, // a deregistered site's last summary goes with it
    summary_at: known ? (row?.summary_at ?? null) : null,
    updated_at: event.recordedAt,
    last_revision: event.revision,
    summary_revision: row?.summary_revision ?? -1,
  };
}

/** A row with a newer summary (summaries of a site without a row, or replayed ones, change nothing). */
function summarized(row: SiteStateRecord | undefined, event: RecordedSummary): SiteStateRecord | undefined {
  if (!row || event.revision <= row.summary_revision) return row;
  return {
    ...row,
    summary: event.data.summary,
    summary_at: event.data.receivedAt,
    summary_revision: event.revision,
  };
}

/**
 * Projection of site-* and sitesummary-* streams into site_state: one row per federation site with the site decider's
 * folded state (guarded by the last folded revision), its relation, address, regions and its last summary.
 */
export const sitesProjection: Projection = {
  name: 'sites',
  filter: { kind: 'streamPrefix', prefixes: ['site-', 'sitesummary-'] },
  tables: ['site_state'],
  async apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void> {
    const known = events.filter(
      (e): e is RecordedSiteEvent | RecordedSummary =>
        isEventOfTypes(e, siteDecider.eventTypes) || isEventOf(e, 'SiteSummaryRecorded'),
    );
    if (known.length === 0) return;
    const rows = await loadRows(tx, [...new Set(known.map((e) => e.data.siteId))]);
    const changed = new Set<string>();
    for (const event of known) {
      const before = rows.get(event.data.siteId);
      const row = isEventOf(event, 'SiteSummaryRecorded')
        ? summarized(before, event)
        : applied(before, event);
      if (!row || row === before) continue;
      rows.set(row.site_id, row);
      changed.add(row.site_id);
      changes.sites.add(row.site_id);
    }
    await upsertRows(
      tx,
      SITE_STATE,
      [...changed].map((id) => rows.get(id) as SiteStateRecord),
    );
  },
};
