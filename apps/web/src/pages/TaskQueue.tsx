import { useState } from 'react';
import {
  ApiError,
  TaskItem,
  TaskProgress,
  TaskProgressUnavailable,
  TaskQueueCommandResult,
  TaskQueueDetail,
  get,
  post,
} from '../api';
import { ago, duration, pct, short } from '../format';
import { namespaceRooms, useApp, useLive, useNow } from '../live';
import { useHostOf } from './Workloads';

/** The running task as GET /v1/taskqueues/:id/tasks/:taskId has it: its instances per node. */
interface TaskNodes {
  nodes: Array<{ nodeId: string; workloadId: string; launch: number; instances: string[] }>;
}

/** How often the page refetches while it shows (progress is sampled by the hub about every 2 s). */
const POLL_MS = 2000;

/** Calls a queue's POST routes for an operator; keeps the API's refusal to show it. */
function useActions(queueId: string, done: () => void) {
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const act = (key: string, path: string) => {
    setBusy(key);
    setError(undefined);
    post<TaskQueueCommandResult>(`/v1/taskqueues/${queueId}${path}`)
      .catch((e: unknown) =>
        setError(
          e instanceof ApiError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e),
        ),
      )
      .finally(() => {
        setBusy(undefined);
        done();
      });
  };
  return { busy, error, act };
}

function isProgress(p: TaskItem['progress']): p is TaskProgress {
  return p !== null && !('unavailable' in p);
}

/** A progress bar of a fraction (0..1). */
function ProgressBar({ fraction }: { fraction: number }) {
  const f = Math.min(1, Math.max(0, fraction));
  return (
    <div className="progress-bar" data-testid="progress-bar" data-fraction={f} title={pct(f)}>
      <div className="progress-fill" style={{ width: `${f * 100}%` }} />
      <span className="progress-label">{pct(f)}</span>
    </div>
  );
}

/** Input left, output done, rate and ETA of a task, as the hub last sampled its Redis queues. */
function Progress({ task, now }: { task: TaskItem; now: number }) {
  const p = task.progress;
  if (p === null) {
    const names = task.spec.inputQueue || task.spec.outputQueue;
    return (
      <p className="muted" data-testid="progress-none">
        {names ? 'progress: not sampled yet' : 'no Redis queues named: no progress to show'}
      </p>
    );
  }
  if (!isProgress(p)) {
    const u = p as TaskProgressUnavailable;
    return (
      <p className="error" data-testid="progress-unavailable">
        progress unavailable: {u.unavailable}
        {u.sampledAt ? <span className="muted"> (last sample {ago(u.sampledAt, now)})</span> : null}
      </p>
    );
  }
  const figures: Array<[string, string, string]> = [
    ['input left', String(p.inputLeft), 'input-left'],
    ['output done', String(p.outputDone), 'output-done'],
    ['rate', `${p.ratePerSecond.toFixed(p.ratePerSecond < 10 ? 2 : 0)}/s`, 'rate'],
    ['ETA', p.inputLeft === 0 ? 'done' : duration(p.etaSeconds), 'eta'],
  ];
  return (
    <div className="progress" data-testid="progress">
      {figures.map(([label, value, id]) => (
        <div key={id} className="figure">
          <div className="muted">{label}</div>
          <strong data-testid={id}>{value}</strong>
        </div>
      ))}
      {p.fractionDone !== null ? <ProgressBar fraction={p.fractionDone} /> : null}
      <span className="muted" data-testid="sampled">
        sampled {ago(p.sampledAt, now)}
        {task.spec.inputQueue ? ` · ${task.spec.inputQueue}` : ''}
        {task.spec.outputQueue ? ` → ${task.spec.outputQueue}` : ''}
      </span>
    </div>
  );
}

/** The running task: instances by status, per node, and progress. */
function Running({
  queueId,
  task,
  paused,
  now,
}: {
  queueId: string;
  task: TaskItem;
  paused: boolean;
  now: number;
}) {
  const { session } = useApp();
  const hostOf = useHostOf();
  const nodes = useLive(
    () => get<TaskNodes>(`/v1/taskqueues/${queueId}/tasks/${task.taskId}`),
    namespaceRooms(session),
    [queueId, task.taskId, task.round],
    { accept: (c) => (c.workloads?.length ?? 0) > 0, pollMs: POLL_MS },
  );
  const counts = Object.entries(task.instances ?? {}).filter(([, n]) => n > 0);
  return (
    <div className="running-task" data-testid="running-task">
      <h3>
        {paused ? 'Paused' : 'Running'}: {task.name} <span className="muted">round {task.round}</span>
      </h3>
      <div className="instances" data-testid="instance-counts">
        {counts.length === 0 ? <span className="muted">no instances yet</span> : null}
        {counts.map(([status, n]) => (
          <span key={status} className={`badge ${status}`} data-testid={`instances-${status}`}>
            {n} {status}
          </span>
        ))}
        <span className="muted">
          {' '}
          on {task.nodes} node{task.nodes === 1 ? '' : 's'}
          {task.startedAt ? ` · started ${ago(task.startedAt, now)}` : ''}
        </span>
      </div>
      <Progress task={task} now={now} />
      {(nodes.data?.nodes.length ?? 0) > 0 ? (
        <table className="candidates" data-testid="task-nodes">
          <thead>
            <tr>
              <th>node</th>
              <th>workload</th>
              <th>instances (INSTANCE_ID order)</th>
            </tr>
          </thead>
          <tbody>
            {nodes.data?.nodes.map((n) => (
              <tr key={n.nodeId}>
                <td>{hostOf(n.nodeId)}</td>
                <td>
                  <a href={`#/workloads/${n.workloadId}`}>{short(n.workloadId)}</a>
                  {n.launch > 1 ? <span className="muted"> (launch {n.launch})</span> : null}
                </td>
                <td>
                  {n.instances.length === 0 ? <span className="muted">submitting</span> : null}
                  {n.instances.map((s, i) => (
                    <span key={i} className={`badge ${s}`} title={`INSTANCE_ID ${i}`}>
                      {s}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

/** One task queue: status, operator actions, the running task with progress, and every task in order; live. */
export function TaskQueue({ id }: { id: string }) {
  const { session } = useApp();
  const now = useNow();
  const detail = useLive(() => get<TaskQueueDetail>(`/v1/taskqueues/${id}`), namespaceRooms(session), [id], {
    // its own row changed, or (while a task runs) a workload of the namespace: instance counts move
    accept: (c) => (c.taskqueues ?? []).includes(id) || (c.workloads?.length ?? 0) > 0,
    pollMs: POLL_MS,
  });
  const { busy, error, act } = useActions(id, detail.reload);
  const q = detail.data;
  if (detail.error && !q) return <p className="error">{detail.error}</p>;
  if (!q) return <p className="muted">loading…</p>;
  const operator = session.role === 'operator' || session.role === 'admin';
  const running = q.tasks.find((t) => t.taskId === q.currentTask);
  // `path` names the action too: at most one runs at a time, and its button says so
  const button = (label: string, path: string, testId: string) => (
    <button key={path} disabled={busy !== undefined} onClick={() => act(path, path)} data-testid={testId}>
      {busy === path ? `${label}…` : label}
    </button>
  );
  return (
    <section>
      <h2>
        <a href="#/taskqueues" className="muted">
          Task queues
        </a>{' '}
        / {q.name} <span className="muted">{q.namespace}</span>{' '}
        <span className={`badge ${q.status}`} data-testid="queue-status">
          {q.status}
        </span>
      </h2>
      <p className="muted">
        {q.queueId} · created {new Date(q.createdAt).toLocaleString()}
        {q.description ? ` · ${q.description}` : ''}
      </p>
      {operator && q.status !== 'deleted' ? (
        <div className="actions" data-testid="queue-actions">
          {button('next', '/next', 'action-next')}
          {q.status === 'paused'
            ? button('resume', '/resume', 'action-resume')
            : button('pause', '/pause', 'action-pause')}
        </div>
      ) : null}
      {error ? (
        <p className="error" data-testid="action-error">
          {error}
        </p>
      ) : null}
      {detail.error ? <p className="error">{detail.error}</p> : null}
      {q.problem ? (
        <p className="error" data-testid="queue-problem">
          {q.problem.message} <span className="muted">({ago(q.problem.at, now)})</span>
        </p>
      ) : null}
      {running ? (
        <Running queueId={id} task={running} paused={q.status === 'paused'} now={now} />
      ) : (
        <p className="muted" data-testid="no-running-task">
          No task runs{q.status === 'paused' ? ' (paused)' : ''}.
        </p>
      )}
      <h3>Tasks</h3>
      {q.tasks.length === 0 ? <p className="muted">none yet</p> : null}
      <table className="candidates tasks" data-testid="tasks-table">
        <thead>
          <tr>
            <th>#</th>
            <th>task</th>
            <th>status</th>
            <th>round</th>
            <th>started</th>
            <th>ended</th>
            <th>done</th>
            <th>reason</th>
            {operator ? <th /> : null}
          </tr>
        </thead>
        <tbody>
          {q.tasks.map((t, i) => (
            <tr key={t.taskId} data-testid={`task-${t.name}`}>
              <td>{i + 1}</td>
              <td>{t.name}</td>
              <td>
                <span className={`badge ${t.status}`} data-testid="task-status">
                  {t.status}
                </span>
              </td>
              <td>{t.round || '—'}</td>
              <td>{t.startedAt ? ago(t.startedAt, now) : '—'}</td>
              <td>{t.endedAt ? ago(t.endedAt, now) : '—'}</td>
              <td>{isProgress(t.progress) ? pct(t.progress.fractionDone) : '—'}</td>
              <td>{t.reason ?? ''}</td>
              {operator ? (
                <td>
                  {t.status === 'pending' || t.status === 'running'
                    ? button('cancel', `/tasks/${t.taskId}/cancel`, 'action-cancel')
                    : null}
                  {t.status === 'failed' || t.status === 'cancelled'
                    ? button('retry', `/tasks/${t.taskId}/retry`, 'action-retry')
                    : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
