import { HcnError } from '@hcn/contracts';

/** Thrown by a handler for a message that can never be handled (malformed, fails validation). */
export class PoisonMessageError extends HcnError {
  constructor(reason: string, code = 'BUS.POISON_MESSAGE') {
    super(code, reason);
  }
}

/** The broker cannot be reached or refused a request. */
export class BusUnavailableError extends HcnError {
  constructor(message: string, cause?: unknown, details: Record<string, unknown> = {}) {
    super('BUS.UNAVAILABLE', message, {
      cause: cause instanceof Error ? cause.message : String(cause),
      ...details,
    });
  }
}

/**
 * The broker refused this client's credentials (SASL): a configuration problem that retrying does not mend. Still
 * BUS.UNAVAILABLE for callers that only tell the bus up from down; the message says authentication failed.
 */
export class BusAuthenticationError extends BusUnavailableError {
  constructor(operation: string, reason: string, cause?: unknown) {
    super(
      `Kafka authentication failed (${operation}): ${reason}; check KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and the password against the broker's users`,
      cause,
      { authentication: 'failed' },
    );
  }
}
