import { ReactNode, useState } from 'react';
import { refusalText } from '../api';

/** State of one confirmed action: asking, running, its refusal. */
export interface ActionState {
  asking: boolean;
  busy: boolean;
  error: string | undefined;
}

/**
 * A button whose action runs only after a confirm step in the page (a second button, so browser specs can click
 * it); a refusal of the API shows as `CODE: message` under it. `testId` names the button (`<testId>`), the confirm
 * and cancel buttons (`<testId>-confirm`, `<testId>-cancel`) and the refusal (`<testId>-error`).
 */
export function ConfirmAction({
  label,
  question,
  testId,
  run,
  danger,
  disabled,
  onDone,
}: {
  label: string;
  question: ReactNode;
  testId: string;
  run: () => Promise<unknown>;
  danger?: boolean;
  disabled?: boolean;
  onDone?: (result: unknown) => void;
}) {
  const [state, setState] = useState<ActionState>({ asking: false, busy: false, error: undefined });
  const confirm = () => {
    setState({ asking: false, busy: true, error: undefined });
    run()
      .then((result) => {
        setState({ asking: false, busy: false, error: undefined });
        onDone?.(result);
      })
      .catch((e: unknown) => setState({ asking: false, busy: false, error: refusalText(e) }));
  };
  return (
    <span className="action">
      {state.asking ? (
        <span className="confirm" data-testid={`${testId}-ask`}>
          <span>{question}</span>{' '}
          <button className={danger ? 'danger' : ''} onClick={confirm} data-testid={`${testId}-confirm`}>
            confirm
          </button>{' '}
          <button
            className="link"
            onClick={() => setState({ ...state, asking: false })}
            data-testid={`${testId}-cancel`}
          >
            cancel
          </button>
        </span>
      ) : (
        <button
          className={danger ? 'danger' : ''}
          disabled={disabled || state.busy}
          onClick={() => setState({ asking: true, busy: false, error: undefined })}
          data-testid={testId}
        >
          {state.busy ? `${label}…` : label}
        </button>
      )}
      {state.error ? (
        <span className="error" data-testid={`${testId}-error`}>
          {' '}
          {state.error}
        </span>
      ) : null}
    </span>
  );
}
