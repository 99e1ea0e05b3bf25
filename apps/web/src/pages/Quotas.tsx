import { Quota, QuotaKey, getAll, hasRole } from '../api';
import { Bar } from '../components/Bar';
import { bytes, cores } from '../format';
import { namespaceRooms, useApp, useLive } from '../live';
import { QuotaEditor } from './QuotaEditor';

const KEYS: Array<[QuotaKey, string, (n: number) => string]> = [
  ['cpuMillis', 'CPU', (n) => `${cores(n)} cores`],
  ['memoryBytes', 'memory', bytes],
  ['accelerators', 'accelerators', String],
  ['workloads', 'workloads', String],
];

/** Quotas: used against hard limits per namespace, live. */
export function Quotas() {
  const { session } = useApp();
  const quotas = useLive(() => getAll<Quota>('/v1/quotas'), namespaceRooms(session), [], {
    accept: (c) => (c.namespaces?.length ?? 0) > 0,
  });
  return (
    <section>
      <h2>Quotas</h2>
      {quotas.error ? <p className="error">{quotas.error}</p> : null}
      {quotas.data?.length === 0 ? (
        <p className="muted">No namespace has a quota or holds anything yet.</p>
      ) : null}
      <table className="quotas">
        <thead>
          <tr>
            <th>namespace</th>
            {KEYS.map(([, label]) => (
              <th key={label}>{label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {(quotas.data ?? []).map((q) => (
            <tr key={q.namespace} data-testid={`quota-${q.namespace}`}>
              <td>{q.namespace}</td>
              {KEYS.map(([key, , fmt]) => {
                const hard = q.limits[key];
                return (
                  <td key={key}>
                    {hard === undefined ? (
                      <span>
                        {fmt(q.used[key])} <span className="muted">(no limit)</span>
                      </span>
                    ) : (
                      <Bar used={q.used[key]} total={hard} label={`${fmt(q.used[key])} / ${fmt(hard)}`} />
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {hasRole(session, 'admin') && quotas.data ? <QuotaEditor quotas={quotas.data} /> : null}
    </section>
  );
}
