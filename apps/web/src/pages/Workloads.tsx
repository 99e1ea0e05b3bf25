import { ReactNode, useState } from 'react';
import { Instance, WorkloadItem, pagePath } from '../api';
import { Column, VirtualRows } from '../components/VirtualRows';
import { ago, short } from '../format';
import { namespaceRooms, useApp, useNow } from '../live';
import { useNodes } from '../nodes-store';
import { Gap, isGap, useWindowed } from '../windowed';
import { SubmitTemplate } from './SubmitTemplate';

/** Host name of a node (its short id until the node list has it). */
export function useHostOf(): (nodeId: string | null) => string {
  const { nodes } = useApp();
  const { byId } = useNodes(nodes);
  return (nodeId) => (nodeId ? (byId.get(nodeId)?.hostname ?? short(nodeId)) : '—');
}

/** Where the instances run: host names, or a dash. */
export function usePlacement(): (instances: Instance[]) => string {
  const hostOf = useHostOf();
  return (instances) => {
    const placed = instances.filter((i) => i.nodeId);
    return placed.length === 0 ? '—' : placed.map((i) => hostOf(i.nodeId)).join(', ');
  };
}

const STATES = [
  'pending',
  'unschedulable',
  'starting',
  'running',
  'stopping',
  'completed',
  'failed',
  'lost',
  'stopped',
];

type Row = WorkloadItem | Gap;

/** A column that shows nothing on placeholder rows. */
function column(title: string, width: string, render: (w: WorkloadItem) => ReactNode): Column<Row> {
  return { title, width, render: (r) => (isGap(r) ? '' : render(r)) };
}

function useColumns(): Array<Column<Row>> {
  const now = useNow();
  const placement = usePlacement();
  return [
    {
      title: 'name',
      width: 'minmax(140px, 1.2fr)',
      render: (w) =>
        isGap(w) ? (
          <span className="muted">…</span>
        ) : (
          <a href={`#/workloads/${w.workloadId}`} data-testid="workload-link">
            {w.name}
          </a>
        ),
    },
    column('namespace', '120px', (w) => w.namespace),
    column('state', '120px', (w) => (
      <span className={`badge ${w.status}`} data-testid="workload-status">
        {w.status}
      </span>
    )),
    column('replicas', '80px', (w) => w.replicas),
    column('placement', 'minmax(160px, 1.5fr)', (w) => placement(w.instances)),
    column('hops', '60px', (w) => w.hops),
    column('submitted', '110px', (w) => ago(w.submittedAt, now)),
  ];
}

const rowKey = (r: Row): string => (isGap(r) ? `gap-${r.gap}` : r.workloadId);

/** Workloads: every workload the token may see, newest first, live; fetched by the window in view. */
export function Workloads() {
  const { session } = useApp();
  const columns = useColumns();
  const [status, setStatus] = useState('');
  const base = status ? `/v1/workloads?status=${encodeURIComponent(status)}` : '/v1/workloads';
  const list = useWindowed<WorkloadItem>(
    (limit, cursor) => pagePath(base, limit, cursor),
    namespaceRooms(session),
    status,
    // a missed notification (e.g. one sent before the room was joined) is caught up by a slow poll
    { accept: (c) => (c.workloads?.length ?? 0) > 0, pollMs: 3000 },
  );
  return (
    <section>
      <h2>
        Workloads <span className="muted">({list.total ?? '…'})</span>
      </h2>
      <div className="filters">
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">any state</option>
          {STATES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      <SubmitTemplate />
      {list.error ? <p className="error">{list.error}</p> : null}
      <VirtualRows
        rows={list.rows}
        columns={columns}
        rowKey={rowKey}
        testId="workloads-table"
        onRange={list.onRange}
      />
    </section>
  );
}
