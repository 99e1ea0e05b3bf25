import { useState } from 'react';
import { SubmitResult, Template, getAll, hasRole, post } from '../api';
import { ConfirmAction } from '../components/ConfirmAction';
import { useApp, useLive } from '../live';

/** Parameter values of a template, its defaults filled in. */
function defaults(t: Template | undefined): Record<string, string> {
  return Object.fromEntries((t?.parameters ?? []).map((p) => [p.name, p.default ?? '']));
}

/**
 * Submit a workload from a job template (operators): pick a template, fill its parameters, confirm; the hub
 * instantiates it (POST /v1/templates/:id/instantiate) and the new workload appears in the list live.
 */
export function SubmitTemplate() {
  const { session } = useApp();
  const templates = useLive(() => getAll<Template>('/v1/templates'), [], []);
  const [open, setOpen] = useState(false);
  const [id, setId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [submitted, setSubmitted] = useState<SubmitResult>();
  if (!hasRole(session, 'operator')) return null;
  const list = templates.data ?? [];
  const template = list.find((t) => t.templateId === id);
  const pick = (templateId: string) => {
    setId(templateId);
    setValues(defaults(list.find((t) => t.templateId === templateId)));
    setSubmitted(undefined);
  };
  if (!open) {
    return (
      <button onClick={() => setOpen(true)} data-testid="submit-template-open">
        submit from a template
      </button>
    );
  }
  return (
    <div className="panel" data-testid="submit-template">
      <h3>Submit from a template</h3>
      {templates.error ? <p className="error">{templates.error}</p> : null}
      {templates.data && list.length === 0 ? (
        <p className="muted">No template yet (POST /v1/templates defines one).</p>
      ) : null}
      <label>
        template{' '}
        <select value={id} onChange={(e) => pick(e.target.value)} data-testid="template-select">
          <option value="">pick one…</option>
          {list.map((t) => (
            <option key={t.templateId} value={t.templateId}>
              {t.templateId} ({t.namespace})
            </option>
          ))}
        </select>
      </label>
      {template ? (
        <>
          {template.description ? <p className="muted">{template.description}</p> : null}
          <div className="form-grid">
            {template.parameters.map((p) => (
              <label key={p.name}>
                <span>
                  {p.name} <span className="muted">{p.description}</span>
                </span>
                <input
                  value={values[p.name] ?? ''}
                  onChange={(e) => setValues({ ...values, [p.name]: e.target.value })}
                  data-testid={`param-${p.name}`}
                />
              </label>
            ))}
          </div>
          <ConfirmAction
            label="submit"
            question={`Submit a workload from ${template.templateId} in ${template.namespace}?`}
            testId="template-submit"
            run={() =>
              post<SubmitResult>(`/v1/templates/${template.templateId}/instantiate`, { parameters: values })
            }
            onDone={(r) => setSubmitted(r as SubmitResult)}
          />
        </>
      ) : null}
      {submitted ? (
        <p data-testid="template-submitted">
          submitted:{' '}
          <a href={`#/workloads/${submitted.workloadId}`} data-testid="template-submitted-link">
            {submitted.workloadId}
          </a>
        </p>
      ) : null}{' '}
      <button className="link" onClick={() => setOpen(false)}>
        close
      </button>
    </div>
  );
}
