import { HcnError, parseOrThrow, sameSecret } from '@hcn/contracts';
import type { z } from 'zod';
import { federationMac } from '../gossip/gossip-envelope';
import { DELEGATION_MAX_SKEW_MS, DelegationEnvelope } from './delegation-envelope';

/** Purposes of the signed messages about a running delegation (each MAC names its purpose, so none stands for another). */
export const DELEGATION_STATUS_PURPOSE = 'hcn-delegation-status';
/** Purpose of a control request (status, stop, cancel) of the delegating site. */
export const DELEGATION_CONTROL_PURPOSE = 'hcn-delegation-control';
/** Purpose of a request for a delegation's output. */
export const DELEGATION_LOGS_PURPOSE = 'hcn-delegation-logs';

/** Signs `value` as JSON for `purpose` with a key two sites share (the delegation envelope's shape and MAC). */
export function sealSigned(secret: string, purpose: string, value: unknown, now: Date): DelegationEnvelope {
  const payload = JSON.stringify(value);
  const sentAt = now.getTime();
  return { payload, sentAt, mac: federationMac(secret, purpose, sentAt, payload) };
}

/** The MAC of `envelope` checks with `secret` for `purpose` (else AUTH.INVALID_DELEGATION_SIGNATURE). */
export function checkSigned(secret: string, purpose: string, envelope: DelegationEnvelope): void {
  const { payload, sentAt, mac } = envelope;
  if (!sameSecret(mac, federationMac(secret, purpose, sentAt, payload)))
    throw new HcnError(
      'AUTH.INVALID_DELEGATION_SIGNATURE',
      'The message is not signed with the credential of the site it names',
    );
}

/**
 * Reads a signed message's payload as `schema` without checking the MAC yet (the payload names the site whose key
 * checks it): sent within the skew (AUTH.DELEGATION_STALE), JSON of the schema (`malformed`).
 */
export function readSigned<S extends z.ZodType>(
  envelope: DelegationEnvelope,
  schema: S,
  malformed: string,
  now: Date,
): z.output<S> {
  if (Math.abs(now.getTime() - envelope.sentAt) > DELEGATION_MAX_SKEW_MS)
    throw new HcnError('AUTH.DELEGATION_STALE', 'The message is too old or from the future', {
      sentAt: envelope.sentAt,
      maxSkewMs: DELEGATION_MAX_SKEW_MS,
    });
  let json: unknown;
  try {
    json = JSON.parse(envelope.payload);
  } catch {
    throw new HcnError(malformed, 'The message is not JSON');
  }
  return parseOrThrow(schema, json, malformed, 'Delegation message');
}
