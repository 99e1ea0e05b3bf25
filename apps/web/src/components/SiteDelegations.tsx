import { useMemo } from 'react';
import { get } from '../api';
import { namespaceRooms, useApp, useLive } from '../live';
import { Line, TimeChart } from './TimeChart';

/** GET /v1/delegations/sites: per bucket and site, instances handed over and refusals. */
interface SiteTimeline {
  since: string;
  until: string;
  bucketSeconds: number;
  buckets: Array<{ at: string; siteId: string; sent: number; rejected: number }>;
}

const BUCKET_SECONDS = 60;
const COLOURS = ['#2563eb', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be123c'];
const count = (v: number) => String(Math.round(v));

/** The window as aligned series: bucket starts, and per site its hand-overs; refusals of every site together. */
function series(timeline: SiteTimeline): { t: number[]; lines: Line[] } {
  const start = Math.floor(Date.parse(timeline.since) / 1000 / BUCKET_SECONDS) * BUCKET_SECONDS;
  const end = Date.parse(timeline.until) / 1000;
  const t: number[] = [];
  for (let at = start; at < end; at += BUCKET_SECONDS) t.push(at);
  const index = (iso: string) => Math.round((Date.parse(iso) / 1000 - start) / BUCKET_SECONDS);
  const sites = [...new Set(timeline.buckets.map((b) => b.siteId))].sort();
  const sent = new Map(sites.map((s) => [s, t.map((): number | null => null)]));
  const refused = t.map((): number | null => null);
  for (const b of timeline.buckets) {
    const i = index(b.at);
    if (i < 0 || i >= t.length) continue;
    const values = sent.get(b.siteId)!;
    if (b.sent > 0) values[i] = (values[i] ?? 0) + b.sent;
    if (b.rejected > 0) refused[i] = (refused[i] ?? 0) + b.rejected;
  }
  const lines = sites.map((s, k) => ({
    label: `to ${s}`,
    values: sent.get(s)!,
    stroke: COLOURS[k % COLOURS.length],
  }));
  return { t, lines: [...lines, { label: 'refused', values: refused, stroke: '#dc2626' }] };
}

/** Totals per site over the window. */
function totals(timeline: SiteTimeline): Array<{ siteId: string; sent: number; rejected: number }> {
  const bySite = new Map<string, { siteId: string; sent: number; rejected: number }>();
  for (const b of timeline.buckets) {
    const row = bySite.get(b.siteId) ?? { siteId: b.siteId, sent: 0, rejected: 0 };
    row.sent += b.sent;
    row.rejected += b.rejected;
    bySite.set(b.siteId, row);
  }
  return [...bySite.values()].sort((a, b) => a.siteId.localeCompare(b.siteId));
}

/**
 * Delegations between sites over the last hour: a chart of the instances handed to each child or peer site per
 * minute and the refusals, and the totals per site. Follows the change feed's rooms of the token's namespaces (the
 * projector names a workload whose delegation steps changed).
 */
export function SiteDelegations() {
  const { session } = useApp();
  const live = useLive(
    () => get<SiteTimeline>(`/v1/delegations/sites?bucketSeconds=${BUCKET_SECONDS}`),
    namespaceRooms(session),
    [],
    { minGapMs: 2000, pollMs: 30_000 },
  );
  const timeline = live.data;
  const chart = useMemo(() => (timeline ? series(timeline) : undefined), [timeline]);
  if (live.error) return <p className="error">{live.error}</p>;
  if (!timeline || !chart) return null;
  const rows = totals(timeline);
  if (rows.length === 0)
    return (
      <p className="muted" data-testid="site-delegations-none">
        No workload handed to another site in the last hour.
      </p>
    );
  return (
    <div data-testid="site-delegations">
      <div className="charts">
        <TimeChart
          title="instances handed to other sites, per minute"
          t={chart.t}
          lines={chart.lines}
          format={count}
          testId="chart-site-delegations"
        />
      </div>
      <table className="quotas" data-testid="site-delegation-totals">
        <thead>
          <tr>
            <th>site</th>
            <th>handed over</th>
            <th>refused or timed out</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.siteId} data-testid={`site-delegations-${r.siteId}`}>
              <td>{r.siteId}</td>
              <td data-testid="sent">{r.sent}</td>
              <td data-testid="rejected">{r.rejected}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
