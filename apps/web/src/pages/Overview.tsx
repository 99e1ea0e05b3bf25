import { useMemo, useState } from 'react';
import { Domain, Node, getAll } from '../api';
import { Bar } from '../components/Bar';
import { HistoryCharts } from '../components/HistoryCharts';
import { bytes, cores } from '../format';
import { useApp, useLive } from '../live';
import { useNodes } from '../nodes-store';
import { TreeNode, domainTree } from '../domain-tree';

/** Accelerator devices of the online nodes, per domain (for hubs whose domains do not report them). */
function useOnlineAccelerators(): ReadonlyMap<string, number> {
  const { nodes } = useNodes(useApp().nodes);
  return useMemo(() => {
    const totals = new Map<string, number>();
    for (const n of nodes.filter((x: Node) => x.status === 'online'))
      totals.set(n.domainId, (totals.get(n.domainId) ?? 0) + n.accelerators);
    return totals;
  }, [nodes]);
}

/** Accelerators in use of all the domain (and its subtree) has. */
function AcceleratorBar({ d }: { d: Domain }) {
  const { total = 0, allocated: used = 0 } = d.capacity.accelerators ?? {};
  if (total === 0 && used === 0) return <span className="muted bar-none">no accelerators</span>;
  return (
    <Bar used={used} total={total} label={`accelerators in use ${used} / ${total}`} testId="accelerators" />
  );
}

/** A domain with its subtree's counts and bars, then the domains below it. */
function DomainRow({ node, depth }: { node: TreeNode; depth: number }) {
  const d = node.domain;
  const cpuTotal = d.capacity.cpuCores.total;
  const memTotal = d.capacity.memoryBytes.total;
  return (
    <>
      <div className="domain" data-testid={`domain-${d.domainId}`} style={{ paddingLeft: depth * 24 }}>
        <div className="domain-name">
          <strong>{d.domainId}</strong>
          {d.definition?.region ? <span className="muted"> · {d.definition.region}</span> : null}
          <div className="counts">
            <span className="online" data-testid="online">
              {d.nodes.online} online
            </span>
            <span className="offline" data-testid="offline">
              {d.nodes.offline} offline
            </span>
            {d.nodes.draining > 0 ? <span className="muted">{d.nodes.draining} draining</span> : null}
          </div>
        </div>
        <Bar
          used={d.reserved.cpuMillis / 1000}
          total={cpuTotal}
          label={`CPU reserved ${cores(d.reserved.cpuMillis)} / ${cpuTotal} cores`}
          testId="cpu-reserved"
        />
        <Bar
          used={cpuTotal - d.capacity.cpuCores.available}
          total={cpuTotal}
          label={`CPU busy ${(cpuTotal - d.capacity.cpuCores.available).toFixed(1)} / ${cpuTotal} cores`}
          testId="cpu-busy"
        />
        <Bar
          used={d.reserved.memoryBytes}
          total={memTotal}
          label={`memory reserved ${bytes(d.reserved.memoryBytes)} / ${bytes(memTotal)}`}
          testId="memory-reserved"
        />
        <AcceleratorBar d={d} />
      </div>
      {node.children.map((c) => (
        <DomainRow key={c.domain.domainId} node={c} depth={depth + 1} />
      ))}
    </>
  );
}

/** Overview: the domain tree with node counts and capacity bars (a parent's are its whole subtree's). */
export function Overview() {
  const domains = useLive(() => getAll<Domain>('/v1/domains'), ['domains'], []);
  const accelerators = useOnlineAccelerators();
  const list = domains.data ?? [];
  const online = list.reduce((n, d) => n + d.nodes.online, 0);
  const offline = list.reduce((n, d) => n + d.nodes.offline, 0);
  const [picked, setPicked] = useState('');
  const chartDomain = picked || list.find((d) => d.nodes.online + d.nodes.offline > 0)?.domainId || '';
  return (
    <section>
      <h2>
        Domains <span className="muted">({list.length})</span>
      </h2>
      <p className="summary">
        <span className="online" data-testid="total-online">
          {online} nodes online
        </span>
        <span className="offline" data-testid="total-offline">
          {offline} offline
        </span>
      </p>
      {domains.error ? <p className="error">{domains.error}</p> : null}
      {!domains.data ? <p className="muted">loading…</p> : null}
      {domainTree(list, accelerators).map((n) => (
        <DomainRow key={n.domain.domainId} node={n} depth={0} />
      ))}
      {chartDomain ? (
        <>
          <h3>
            Domain history{' '}
            <select
              value={chartDomain}
              onChange={(e) => setPicked(e.target.value)}
              data-testid="history-domain"
            >
              {list.map((d) => (
                <option key={d.domainId}>{d.domainId}</option>
              ))}
            </select>
          </h3>
          <HistoryCharts scope={{ domainId: chartDomain }} />
        </>
      ) : null}
    </section>
  );
}
