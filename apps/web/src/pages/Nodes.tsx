import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Device, Node } from '../api';
import { Bar } from '../components/Bar';
import { Column, VirtualRows } from '../components/VirtualRows';
import { ago, bytes, pct } from '../format';
import { useApp, useNow } from '../live';
import { useNodes } from '../nodes-store';
import { NodePanel } from './NodePanel';

/** Who holds a device now: `held` (whole) or its memory slices. */
function held(d: Device): string {
  if (d.allocation?.wholeDevice) return ' held';
  const slices = d.allocation?.slices ?? [];
  return slices.length > 0 ? ` ${slices.length} slice${slices.length > 1 ? 's' : ''}` : '';
}

function devices(n: Node): string {
  if (n.devices.length === 0) return n.accelerators > 0 ? `${n.accelerators} accelerators` : '—';
  return n.devices
    .map(
      (d) =>
        `${d.vendor} ${d.model}${d.memoryBytes ? ` ${bytes(d.memoryBytes)}` : ''} (health ${d.health})${held(d)}`,
    )
    .join(', ');
}

const nodeKey = (n: Node): string => n.nodeId;

/** The hover text of a node's runtime badge: its last error (reason, allocation, workload, when), if any. */
function runtimeTitle(n: Node): string {
  const runtime = n.runtime;
  if (!runtime) return '';
  const active = `${runtime.activeInstances} active allocation${runtime.activeInstances === 1 ? '' : 's'}`;
  const e = runtime.lastError;
  if (!e) return active;
  return `${active}; last error: ${e.reason} (allocation ${e.allocationId}, workload ${e.workloadId}, ${e.at})`;
}

/** A node's runtime: its state and active allocations as a badge, the last error on hover. */
function RuntimeBadge({ n }: { n: Node }) {
  if (!n.runtime) return <span className="muted">—</span>;
  const { state, activeInstances } = n.runtime;
  return (
    <span
      className={`badge runtime-${state}`}
      data-testid="runtime"
      data-state={state}
      title={runtimeTitle(n)}
    >
      {state} {activeInstances}
      {state !== 'error' && n.runtime.lastError ? ' !' : ''}
    </span>
  );
}

/** Nodes: every node, windowed, patched row by row as the change feed names them. */
export function Nodes() {
  const { nodes: store } = useApp();
  const { nodes, loaded, error } = useNodes(store);
  const now = useNow();
  const [filter, setFilter] = useState('');
  const [status, setStatus] = useState('');
  const [runtime, setRuntime] = useState('');
  const [selected, setSelected] = useState<string>();
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return nodes.filter(
      (n) =>
        (!status || n.status === status) &&
        (!runtime || n.runtime?.state === runtime) &&
        (!f || n.hostname.toLowerCase().includes(f) || n.domainId.includes(f) || n.nodeId.startsWith(f)),
    );
  }, [nodes, filter, status, runtime]);
  const selectedNode = selected ? nodes.find((n) => n.nodeId === selected) : undefined;
  const online = nodes.filter((n) => n.status === 'online').length;
  const onVisible = useCallback((ids: string[]) => store.setVisible(ids), [store]);
  useEffect(() => () => store.setVisible([]), [store]);
  const columns: Array<Column<Node>> = [
    {
      title: 'status',
      width: '90px',
      render: (n) => (
        <span className={`badge ${n.status}`} data-testid="status">
          {n.draining ? 'draining' : n.status}
        </span>
      ),
    },
    {
      title: 'hostname',
      width: 'minmax(140px, 1.2fr)',
      render: (n) => (
        <button
          className="link"
          title={n.nodeId}
          onClick={() => setSelected(n.nodeId)}
          data-testid="node-link"
        >
          {n.hostname}
        </button>
      ),
    },
    { title: 'domain', width: '110px', render: (n) => n.domainId },
    { title: 'last seen', width: '100px', render: (n) => ago(n.lastSeenAt, now) },
    {
      title: 'CPU',
      width: 'minmax(120px, 1fr)',
      render: (n) => (
        <Bar used={n.usage?.cpuUsage ?? 0} total={1} label={`${pct(n.usage?.cpuUsage)} of ${n.cpuCores}`} />
      ),
    },
    {
      title: 'memory',
      width: 'minmax(140px, 1fr)',
      render: (n) => (
        <Bar
          used={n.usage?.memoryUsedBytes ?? 0}
          total={n.memoryBytes}
          label={`${bytes(n.usage?.memoryUsedBytes)} / ${bytes(n.memoryBytes)}`}
        />
      ),
    },
    {
      title: 'devices',
      width: 'minmax(160px, 1.5fr)',
      render: (n) => <span title={devices(n)}>{devices(n)}</span>,
    },
    { title: 'runtime', width: '110px', render: (n) => <RuntimeBadge n={n} /> },
  ];
  return (
    <section>
      <h2>
        Nodes{' '}
        <span className="muted" data-testid="node-counts">
          {online} online / {nodes.length}
        </span>
      </h2>
      <div className="filters">
        <input
          placeholder="filter: hostname, domain, id"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">any status</option>
          <option value="online">online</option>
          <option value="offline">offline</option>
          <option value="deregistered">deregistered</option>
        </select>
        <select value={runtime} onChange={(e) => setRuntime(e.target.value)} data-testid="runtime-filter">
          <option value="">any runtime</option>
          <option value="running">running</option>
          <option value="error">error</option>
          <option value="idle">idle</option>
        </select>
        <span className="muted">{rows.length} shown</span>
      </div>
      {error ? <p className="error">{error}</p> : null}
      {selectedNode ? <NodePanel node={selectedNode} onClose={() => setSelected(undefined)} /> : null}
      {!loaded ? <p className="muted">loading…</p> : null}
      <VirtualRows
        rows={rows}
        columns={columns}
        rowKey={nodeKey}
        testId="nodes-table"
        onVisible={onVisible}
      />
    </section>
  );
}
