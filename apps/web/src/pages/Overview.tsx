import { Domain, get } from '../api';
import { Bar } from '../components/Bar';
import { bytes, cores } from '../format';
import { useLive } from '../live';

interface TreeNode {
  domain: Domain;
  children: TreeNode[];
}

function tree(domains: Domain[]): TreeNode[] {
  const nodes = new Map(domains.map((d) => [d.domainId, { domain: d, children: [] as TreeNode[] }]));
  const roots: TreeNode[] = [];
  for (const n of nodes.values()) {
    const parent = n.domain.definition?.parentId ? nodes.get(n.domain.definition.parentId) : undefined;
    (parent ? parent.children : roots).push(n);
  }
  return roots;
}

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
        />
        <Bar
          used={cpuTotal - d.capacity.cpuCores.available}
          total={cpuTotal}
          label={`CPU busy ${(cpuTotal - d.capacity.cpuCores.available).toFixed(1)} / ${cpuTotal} cores`}
        />
        <Bar
          used={d.reserved.memoryBytes}
          total={memTotal}
          label={`memory reserved ${bytes(d.reserved.memoryBytes)} / ${bytes(memTotal)}`}
        />
      </div>
      {node.children.map((c) => (
        <DomainRow key={c.domain.domainId} node={c} depth={depth + 1} />
      ))}
    </>
  );
}

/** Overview: the domain tree with node counts and capacity bars. */
export function Overview() {
  const domains = useLive(() => get<Domain[]>('/v1/domains'), ['domains'], []);
  const list = domains.data ?? [];
  const online = list.reduce((n, d) => n + d.nodes.online, 0);
  const offline = list.reduce((n, d) => n + d.nodes.offline, 0);
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
      {tree(list).map((n) => (
        <DomainRow key={n.domain.domainId} node={n} depth={0} />
      ))}
    </section>
  );
}
