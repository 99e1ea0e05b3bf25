import {
  Allocation,
  Candidate,
  ChainStep,
  Logs,
  WorkloadDetail as Detail,
  get,
  hasRole,
  post,
  send,
} from '../api';
import { ConfirmAction } from '../components/ConfirmAction';
import { bytes, short } from '../format';
import { useApp, useLive } from '../live';
import { useHostOf, usePlacement } from './Workloads';

function Candidates({ list }: { list: Candidate[] | undefined }) {
  if (!list || list.length === 0) return null;
  return (
    <table className="candidates" data-testid="candidates">
      <thead>
        <tr>
          <th>candidate</th>
          <th>verdict</th>
          <th>reason</th>
          <th>score</th>
        </tr>
      </thead>
      <tbody>
        {list.map((c) => (
          <tr key={`${c.kind}/${c.id}`} className={c.accepted ? 'accepted' : 'rejected'}>
            <td>
              {c.kind} {c.kind === 'node' ? short(c.id) : c.id}
            </td>
            <td>{c.accepted ? 'accepted' : 'filtered out'}</td>
            <td>
              {c.reason ?? ''}
              {c.detail ? <span className="muted"> {c.detail}</span> : null}
            </td>
            <td>{c.score === undefined ? '' : c.score.toFixed(3)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a compact record kept of a scope: judged of members, counts per reason (the rest: `hcn audit explain`). */
function Judging({ data }: { data: ChainStep['data'] }) {
  if (data.judged === undefined) return null;
  const counts = Object.entries(data.rejectedCounts ?? {})
    .map(([reason, n]) => `${reason} ×${n}`)
    .join(', ');
  return (
    <div className="muted" data-testid="judging">
      judged {data.judged} of {data.members ?? data.judged}
      {counts ? `; filtered out: ${counts}` : ''}; showing the best {data.topK ?? 0}, the choice and examples
      (every verdict: explain this decision)
    </div>
  );
}

function Step({ step, host }: { step: ChainStep; host: (nodeId: string) => string }) {
  const d = step.data;
  let title: string;
  switch (step.type) {
    case 'WorkloadDelegated':
      title = `hop ${d.hop}: ${d.fromScope ?? 'root'} → ${d.toKind} ${d.toKind === 'node' ? host(d.to ?? '') : d.to}`;
      break;
    case 'DelegationRejected':
      title = `rejected by ${d.scope}: ${d.reason}`;
      break;
    case 'AllocationPlaced':
      title = `placed on ${host(d.nodeId ?? '')} in ${d.domainId}`;
      break;
    case 'WorkloadUnschedulable':
      title = `unschedulable: ${Object.entries(d.reasons ?? {})
        .map(([r, n]) => `${r} ×${n}`)
        .join(', ')}`;
      break;
  }
  return (
    <li className={`step ${step.type}`} data-testid="hop" data-type={step.type}>
      <div className="step-title">
        <strong>{title}</strong>
        <span className="muted"> {new Date(step.recordedAt).toLocaleTimeString()}</span>
      </div>
      {d.detail ? <div className="muted">{d.detail}</div> : null}
      {d.policy ? <div className="muted">policy {JSON.stringify(d.policy)}</div> : null}
      <Judging data={d} />
      <Candidates list={d.candidates} />
    </li>
  );
}

/** The allocations with their outcome, published ports and measured CPU time and memory (now / peak). */
function Allocations({ list, host }: { list: Allocation[]; host: (nodeId: string) => string }) {
  if (list.length === 0) return <p className="muted">none yet</p>;
  return (
    <table className="candidates" data-testid="allocations">
      <thead>
        <tr>
          <th>allocation</th>
          <th>node</th>
          <th>status</th>
          <th>exit</th>
          <th>CPU s</th>
          <th>memory</th>
          <th>peak</th>
          <th>ports</th>
        </tr>
      </thead>
      <tbody>
        {list.map((a) => (
          <tr key={a.allocationId} title={a.reason ?? ''}>
            <td>{short(a.allocationId)}</td>
            <td>{host(a.nodeId)}</td>
            <td>{a.status}</td>
            <td>{a.exitCode ?? '—'}</td>
            <td data-testid="cpu-seconds">{a.usage ? a.usage.cpuSeconds.toFixed(1) : '—'}</td>
            <td>{a.usage ? bytes(a.usage.memoryBytes) : '—'}</td>
            <td>{a.usage ? bytes(a.usage.memoryPeakBytes) : '—'}</td>
            <td>
              {(a.ports ?? []).map((p) => `${p.hostPort}→${p.containerPort}/${p.protocol}`).join(' ') || '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Stop, restart and delete for operators (the API checks the role and the namespace again). */
function Actions({ w, reload }: { w: Detail; reload: () => void }) {
  const { session } = useApp();
  if (!hasRole(session, 'operator')) return null;
  const path = `/v1/workloads/${w.workloadId}`;
  return (
    <div className="actions" data-testid="workload-actions">
      <ConfirmAction
        label="stop"
        question={`Stop every allocation of ${w.name}?`}
        testId="workload-stop"
        run={() => post(`${path}/stop`)}
        onDone={reload}
      />
      <ConfirmAction
        label="restart"
        question={`Replace every allocation of ${w.name} with a fresh one?`}
        testId="workload-restart"
        run={() => post(`${path}/restart`)}
        onDone={reload}
      />
      <ConfirmAction
        label="delete"
        danger
        question={`Delete ${w.name} (stops it and releases its quota)?`}
        testId="workload-delete"
        run={() => send('DELETE', path)}
        onDone={reload}
      />
    </div>
  );
}

/** One workload: state, instances, the delegation chain as a timeline, and its output. */
export function WorkloadDetail({ id }: { id: string }) {
  const room = [`workload:${id}`];
  const detail = useLive(() => get<Detail>(`/v1/workloads/${id}`), room, [id]);
  const running = ['starting', 'running', 'stopping'].includes(detail.data?.status ?? '');
  const logs = useLive(() => get<Logs>(`/v1/workloads/${id}/logs?lines=200`), room, [id, running], {
    pollMs: running ? 1500 : undefined,
  });
  // While it runs, measured usage moves with every heartbeat: refresh the allocations every few seconds.
  const usage = useLive(() => get<Detail>(`/v1/workloads/${id}`), room, [id, running], {
    pollMs: running ? 3000 : undefined,
  });
  const placement = usePlacement();
  const hostOf = useHostOf();
  const w = detail.data;
  if (detail.error && !w) return <p className="error">{detail.error}</p>;
  if (!w) return <p className="muted">loading…</p>;
  return (
    <section>
      <h2>
        {w.name} <span className="muted">{w.namespace}</span>{' '}
        <span className={`badge ${w.status}`} data-testid="detail-status">
          {w.status}
        </span>
      </h2>
      <p className="muted">
        {w.workloadId} · submitted {new Date(w.submittedAt).toLocaleString()}
        {w.submittedBy ? ` by ${w.submittedBy.id}` : ''} · placement{' '}
        {w.instances.some((i) => i.nodeId)
          ? placement(w.instances)
          : [...new Set(w.allocations.map((a) => hostOf(a.nodeId)))].join(', ') || '—'}
      </p>
      <Actions w={w} reload={detail.reload} />
      <h3>Allocations</h3>
      <Allocations list={(usage.data ?? w).allocations} host={hostOf} />
      <h3>Delegation chain</h3>
      {w.delegations.map((chain) => (
        <div key={`${chain.instance}/${chain.attempt}`} className="chain">
          <div className="muted">
            instance {chain.instance}, attempt {chain.attempt}
          </div>
          <ol className="timeline" data-testid="timeline">
            {chain.steps.map((s) => (
              <Step key={s.revision} step={s} host={hostOf} />
            ))}
          </ol>
        </div>
      ))}
      <h3>Logs</h3>
      <pre className="logs" data-testid="logs">
        {(logs.data?.allocations ?? [])
          .flatMap((a) =>
            a.lines.map((l) => `${short(a.allocationId)} ${l.stream === 'stderr' ? '!' : ' '} ${l.line}`),
          )
          .join('\n') || '(no output yet)'}
      </pre>
    </section>
  );
}
