import { get, getAll } from '../api';
import { Bar } from '../components/Bar';
import { SiteDelegations } from '../components/SiteDelegations';
import { ago, bytes, cores } from '../format';
import { useLive, useNow } from '../live';

/** What a site told about itself (GET /v1/federation/sites: `summary`). */
export interface SiteSummary {
  nodes: { online: number; offline: number };
  cpuMillis: { total: number; free: number };
  memoryBytes: { total: number; free: number };
  accelerators: Array<{ vendor: string; model: string; total: number; free: number }>;
  regions: string[];
}

/** A federation site as the hub lists it. */
export interface Site {
  siteId: string;
  status: string;
  relation: 'child' | 'member' | 'none';
  name: string | null;
  url: string | null;
  regions: string[];
  lastSeenAt: string | null;
  summary: SiteSummary | null;
  summaryAt: string | null;
}

/** This site's link to its parent (GET /v1/federation/link). */
interface Link {
  siteId: string | null;
  parent: {
    parentUrl: string;
    registered: boolean;
    lastSentAt: string | null;
    lastError: string | null;
  } | null;
}

/** A gossip member as this site holds it now (GET /v1/federation/members). */
interface Member {
  siteId: string;
  url: string;
  alive: boolean;
  lastHeardMsAgo: number;
  summary: SiteSummary | null;
}

/** The later of two instants (either may be missing). */
function latest(a: string | null, b: string | null): string | null {
  if (!a || !b) return a ?? b;
  return Date.parse(a) > Date.parse(b) ? a : b;
}

/** Accelerators by model: `2/4 NVIDIA A100 · 1/1 AMD MI300` (free/total). */
function accelerators(summary: SiteSummary): string {
  const list = summary.accelerators.map((a) => `${a.free}/${a.total} ${a.vendor} ${a.model}`);
  return list.join(' · ') || 'none';
}

function SummaryCells({ summary, regions }: { summary: SiteSummary | null; regions: string[] }) {
  if (!summary)
    return (
      <td colSpan={5} className="muted" data-testid="site-no-summary">
        no summary yet
      </td>
    );
  const { cpuMillis: cpu, memoryBytes: memory } = summary;
  return (
    <>
      <td data-testid="site-nodes">
        {summary.nodes.online} online · {summary.nodes.offline} offline
      </td>
      <td data-testid="site-cpu">
        <Bar
          used={cpu.total - cpu.free}
          total={cpu.total}
          label={`${cores(cpu.free)} of ${cores(cpu.total)} cores free`}
        />
      </td>
      <td data-testid="site-memory">
        <Bar
          used={memory.total - memory.free}
          total={memory.total}
          label={`${bytes(memory.free)} of ${bytes(memory.total)} free`}
        />
      </td>
      <td data-testid="site-accelerators">{accelerators(summary)}</td>
      <td data-testid="site-regions">{[...new Set([...regions, ...summary.regions])].join(', ') || '—'}</td>
    </>
  );
}

function SitesTable({ sites, testId, now }: { sites: Site[]; testId: string; now: number }) {
  return (
    <table className="quotas" data-testid={testId}>
      <thead>
        <tr>
          <th>site</th>
          <th>status</th>
          <th>nodes</th>
          <th>CPU free</th>
          <th>memory free</th>
          <th>accelerators (free/total)</th>
          <th>regions</th>
          <th>last heard</th>
        </tr>
      </thead>
      <tbody>
        {sites.map((s) => (
          <tr key={s.siteId} data-testid={`site-${s.siteId}`}>
            <td>
              <strong>{s.name ?? s.siteId}</strong>
              <div className="muted">{s.url ?? s.siteId}</div>
            </td>
            <td>
              <span className={`badge ${s.status}`} data-testid="site-status">
                {s.status}
              </span>
            </td>
            <SummaryCells summary={s.summary} regions={s.regions} />
            <td data-testid="site-last-heard">{ago(latest(s.lastSeenAt, s.summaryAt), now)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ParentLink({ link, now }: { link: Link | undefined; now: number }) {
  if (!link) return null;
  const parent = link.parent;
  if (!parent) return <p className="muted">This site reports to no parent.</p>;
  const status = parent.lastError ? 'failing' : parent.registered ? 'linked' : 'registering';
  return (
    <table className="quotas" data-testid="site-parent">
      <tbody>
        <tr>
          <td>{parent.parentUrl}</td>
          <td>
            <span className={`badge ${parent.lastError ? 'offline' : 'online'}`} data-testid="parent-status">
              {status}
            </span>
          </td>
          <td>last summary sent {ago(parent.lastSentAt, now)}</td>
          <td className="error">{parent.lastError ?? ''}</td>
        </tr>
      </tbody>
    </table>
  );
}

/**
 * Sites: this site's parent link, its child sites and its peers (gossip members) with their online state, last
 * summary and when they were last heard from, and the delegations to other sites over the last hour. Sites follow the change feed (`sites` room: state and summaries);
 * the link and the live gossip members, held in the hub's memory, are polled.
 */
export function Sites() {
  const now = useNow();
  const sites = useLive(() => getAll<Site>('/v1/federation/sites'), ['sites'], []);
  const local = useLive(
    async () => ({
      link: await get<Link>('/v1/federation/link'),
      members: (await get<{ items: Member[] }>('/v1/federation/members')).items,
    }),
    [],
    [],
    { pollMs: 3000 },
  );
  const all = sites.data ?? [];
  const children = all.filter((s) => s.relation === 'child');
  const peers = all.filter((s) => s.relation === 'member');
  const invited = all.filter((s) => s.relation === 'none' && s.status === 'invited');
  const members = local.data?.members ?? [];
  return (
    <section>
      <h2>
        Sites{' '}
        <span className="muted">
          {local.data?.link.siteId ? `(this site: ${local.data.link.siteId})` : ''}
        </span>
      </h2>
      {sites.error ? <p className="error">{sites.error}</p> : null}
      <h3>Parent</h3>
      <ParentLink link={local.data?.link} now={now} />
      <h3>
        Children <span className="muted">({sites.data ? children.length : '…'})</span>
      </h3>
      {sites.data && children.length === 0 ? (
        <p className="muted">
          No child site: <code>POST /v1/federation/join-tokens</code>, then start the child with{' '}
          <code>HCN_FEDERATION_PARENT_URL</code> and the token.
        </p>
      ) : null}
      {children.length > 0 ? <SitesTable sites={children} testId="children-table" now={now} /> : null}
      <h3>
        Peers <span className="muted">({sites.data ? peers.length : '…'})</span>
      </h3>
      {sites.data && peers.length === 0 ? (
        <p className="muted">No peer known (peers are found by gossip: HCN_FEDERATION_GOSSIP_SECRET).</p>
      ) : null}
      {peers.length > 0 ? <SitesTable sites={peers} testId="peers-table" now={now} /> : null}
      {members.length > 0 ? (
        <p className="muted" data-testid="gossip-members">
          Gossip now: {members.map((m) => `${m.siteId} ${m.alive ? 'alive' : 'silent'}`).join(' · ')}
        </p>
      ) : null}
      {invited.length > 0 ? (
        <p className="muted" data-testid="invited-sites">
          Invited, not joined yet: {invited.map((s) => s.siteId).join(', ')}
        </p>
      ) : null}
      <h3>Delegations between sites</h3>
      <SiteDelegations />
    </section>
  );
}
