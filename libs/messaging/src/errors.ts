import { HcnError } from '@hcn/contracts';

/** Thrown by a handler for a message that can never be handled (malformed, fails validation). */
export class PoisonMessageError extends HcnError {
  constructor(reason: string, code = 'BUS.POISON_MESSAGE') {
    super(code, reason);
  }
}

/** The broker cannot be reached or refused a request. */
export class BusUnavailableError extends HcnError {
  constructor(message: string, cause?: unknown) {
    super('BUS.UNAVAILABLE', message, { cause: cause instanceof Error ? cause.message : String(cause) });
  }
}
