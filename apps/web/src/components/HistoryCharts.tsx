import { useMemo, useState } from 'react';
import { get } from '../api';
import { bytes, pct } from '../format';
import { useLive } from '../live';
import { Line, TimeChart } from './TimeChart';

/** GET /v1/history/usage. */
interface UsageHistory {
  t: number[];
  cpu: Array<number | null>;
  memoryUsedBytes: Array<number | null>;
  memoryTotalBytes: number;
  accelerator: Array<number | null> | null;
  nodes: { read: number; total: number };
}

/** GET /v1/history/scheduling. */
interface SchedulingHistory {
  t: number[];
  placements: number[];
  failures: number[];
}

const WINDOWS: Array<[number, string]> = [
  [15, '15 min'],
  [60, '1 h'],
  [360, '6 h'],
  [1440, '24 h'],
];
const fraction = (v: number) => pct(v);
const count = (v: number) => String(Math.round(v));

/**
 * History of one node or one domain: CPU, memory and accelerator use from the retained heartbeats, and
 * allocations placed and failed over time; refetched every 10 s while the page shows.
 */
export function HistoryCharts({ scope }: { scope: { nodeId: string } | { domainId: string } }) {
  const [minutes, setMinutes] = useState(60);
  const param =
    'nodeId' in scope ? `nodeId=${scope.nodeId}` : `domainId=${encodeURIComponent(scope.domainId)}`;
  const query = `${param}&minutes=${minutes}&buckets=60`;
  const usage = useLive(() => get<UsageHistory>(`/v1/history/usage?${query}`), [], [query], {
    pollMs: 10_000,
  });
  const sched = useLive(() => get<SchedulingHistory>(`/v1/history/scheduling?${query}`), [], [query], {
    pollMs: 10_000,
  });
  const u = usage.data;
  const s = sched.data;
  const cpu = useMemo<Line[]>(() => (u ? [{ label: 'CPU', values: u.cpu, stroke: '#2458b3' }] : []), [u]);
  const mem = useMemo<Line[]>(
    () => (u ? [{ label: 'memory used', values: u.memoryUsedBytes, stroke: '#2e7d32' }] : []),
    [u],
  );
  const acc = useMemo<Line[]>(
    () => (u?.accelerator ? [{ label: 'accelerators', values: u.accelerator, stroke: '#8e24aa' }] : []),
    [u],
  );
  const placed = useMemo<Line[]>(
    () =>
      s
        ? [
            { label: 'placed', values: s.placements, stroke: '#2458b3' },
            { label: 'failed or lost', values: s.failures, stroke: '#b3261e' },
          ]
        : [],
    [s],
  );
  return (
    <div data-testid="history">
      <div className="filters">
        <strong>History</strong>
        <select
          value={minutes}
          onChange={(e) => setMinutes(Number(e.target.value))}
          data-testid="history-window"
        >
          {WINDOWS.map(([m, label]) => (
            <option key={m} value={m}>
              last {label}
            </option>
          ))}
        </select>
        {u && u.nodes.total > u.nodes.read ? (
          <span className="muted">
            usage of the first {u.nodes.read} of {u.nodes.total} nodes
          </span>
        ) : null}
      </div>
      {usage.error ? <p className="error">{usage.error}</p> : null}
      {sched.error ? <p className="error">{sched.error}</p> : null}
      <div className="charts">
        {u ? (
          <TimeChart title="CPU" t={u.t} lines={cpu} format={fraction} yMax={1} testId="chart-cpu" />
        ) : null}
        {u ? (
          <TimeChart
            title={`memory (of ${bytes(u.memoryTotalBytes)})`}
            t={u.t}
            lines={mem}
            format={bytes}
            yMax={u.memoryTotalBytes || undefined}
            testId="chart-memory"
          />
        ) : null}
        {u?.accelerator ? (
          <TimeChart
            title="accelerator utilization"
            t={u.t}
            lines={acc}
            format={fraction}
            yMax={1}
            testId="chart-accelerator"
          />
        ) : null}
        {s ? (
          <TimeChart
            title="placements and failures"
            t={s.t}
            lines={placed}
            format={count}
            testId="chart-scheduling"
          />
        ) : null}
      </div>
    </div>
  );
}
