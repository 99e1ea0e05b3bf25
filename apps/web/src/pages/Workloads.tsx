import { useState } from 'react';
import { Instance, WorkloadItem, get } from '../api';
import { Column, VirtualRows } from '../components/VirtualRows';
import { ago, short } from '../format';
import { namespaceRooms, useApp, useLive, useNow } from '../live';
import { useNodes } from '../nodes-store';

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

/** Workloads: every workload the token may see, newest first, live. */
export function Workloads() {
  const { session } = useApp();
  const [status, setStatus] = useState('');
  const now = useNow();
  const placement = usePlacement();
  const list = useLive(
    () =>
      get<{ items: WorkloadItem[]; total: number }>(
        `/v1/workloads?limit=1000${status ? `&status=${encodeURIComponent(status)}` : ''}`,
      ),
    namespaceRooms(session),
    [status],
    // a missed notification (e.g. one sent before the room was joined) is caught up by a slow poll
    { accept: (c) => (c.workloads?.length ?? 0) > 0, pollMs: 3000 },
  );
  const rows = list.data?.items ?? [];
  const columns: Array<Column<WorkloadItem>> = [
    {
      title: 'name',
      width: 'minmax(140px, 1.2fr)',
      render: (w) => (
        <a href={`#/workloads/${w.workloadId}`} data-testid="workload-link">
          {w.name}
        </a>
      ),
    },
    { title: 'namespace', width: '120px', render: (w) => w.namespace },
    {
      title: 'state',
      width: '120px',
      render: (w) => (
        <span className={`badge ${w.status}`} data-testid="workload-status">
          {w.status}
        </span>
      ),
    },
    { title: 'replicas', width: '80px', render: (w) => w.replicas },
    { title: 'placement', width: 'minmax(160px, 1.5fr)', render: (w) => placement(w.instances) },
    { title: 'hops', width: '60px', render: (w) => w.hops },
    { title: 'submitted', width: '110px', render: (w) => ago(w.submittedAt, now) },
  ];
  return (
    <section>
      <h2>
        Workloads <span className="muted">({list.data?.total ?? '…'})</span>
      </h2>
      <div className="filters">
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">any state</option>
          {[
            'pending',
            'unschedulable',
            'starting',
            'running',
            'stopping',
            'completed',
            'failed',
            'lost',
            'stopped',
          ].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      {list.error ? <p className="error">{list.error}</p> : null}
      <VirtualRows rows={rows} columns={columns} rowKey={(w) => w.workloadId} testId="workloads-table" />
    </section>
  );
}
