import { useState } from 'react';
import { Quota, QuotaKey, send } from '../api';
import { ConfirmAction } from '../components/ConfirmAction';

/** The limits as the form takes them: CPU in cores, memory in MiB (the API's units are millicores and bytes). */
const FIELDS: Array<[QuotaKey, string, number]> = [
  ['cpuMillis', 'CPU cores', 1000],
  ['memoryBytes', 'memory MiB', 1024 * 1024],
  ['accelerators', 'accelerators', 1],
  ['workloads', 'workloads', 1],
];

/** The form's text of a quota's current limits (empty: no limit). */
function initial(quota: Quota | undefined): Record<QuotaKey, string> {
  const out = {} as Record<QuotaKey, string>;
  for (const [key, , unit] of FIELDS) {
    const v = quota?.limits[key];
    out[key] = v === undefined ? '' : String(v / unit);
  }
  return out;
}

/** The limits to send: filled fields only, in the API's units (a field that is not a number is sent as is, for the API to refuse). */
function limitsOf(values: Record<QuotaKey, string>): Record<string, unknown> {
  const limits: Record<string, unknown> = {};
  for (const [key, , unit] of FIELDS) {
    const text = values[key].trim();
    if (text === '') continue;
    const n = Number(text);
    limits[key] = Number.isFinite(n) ? Math.round(n * unit) : text;
  }
  return limits;
}

/** Set a namespace's hard limits (admins; PUT /v1/quotas/:ns); the table above follows live. */
export function QuotaEditor({ quotas, namespace }: { quotas: Quota[]; namespace?: string }) {
  const [ns, setNs] = useState(namespace ?? '');
  const [values, setValues] = useState(() => initial(quotas.find((q) => q.namespace === namespace)));
  const pickNamespace = (name: string) => {
    setNs(name);
    const known = quotas.find((q) => q.namespace === name);
    if (known) setValues(initial(known));
  };
  return (
    <div className="panel" data-testid="quota-editor">
      <h3>Set a quota</h3>
      <div className="form-grid">
        <label>
          <span>namespace</span>
          <input
            list="quota-namespaces"
            value={ns}
            onChange={(e) => pickNamespace(e.target.value)}
            data-testid="quota-namespace"
          />
          <datalist id="quota-namespaces">
            {quotas.map((q) => (
              <option key={q.namespace} value={q.namespace} />
            ))}
          </datalist>
        </label>
        {FIELDS.map(([key, label]) => (
          <label key={key}>
            <span>{label}</span>
            <input
              value={values[key]}
              placeholder="no limit"
              onChange={(e) => setValues({ ...values, [key]: e.target.value })}
              data-testid={`quota-${key}`}
            />
          </label>
        ))}
      </div>
      <ConfirmAction
        label="set quota"
        question={`Replace the limits of ${ns || '(no namespace)'}?`}
        testId="quota-set"
        disabled={!ns.trim()}
        run={() => send('PUT', `/v1/quotas/${encodeURIComponent(ns.trim())}`, { limits: limitsOf(values) })}
      />
    </div>
  );
}
