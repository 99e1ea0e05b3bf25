import {
  DelegationRequest,
  HcnError,
  delegationRequestSchema,
  parseOrThrow,
  sameSecret,
} from '@hcn/contracts';
import { z } from 'zod';
import { federationMac } from '../gossip/gossip-envelope';

/** How far a delegation request's time may be from the child's clock. */
export const DELEGATION_MAX_SKEW_MS = 60_000;
const PURPOSE = 'hcn-delegation';

/**
 * A signed delegation request: the request as JSON text, when it was sent (ms) and the MAC over both, keyed with the
 * site credential the parent issued the child (the secret the two share: the child keeps it in its credential
 * file, the parent derives it again from the registration).
 */
export const delegationEnvelopeSchema = z
  .object({
    payload: z.string().max(4 * 2 ** 20),
    sentAt: z.number().int().nonnegative(),
    mac: z.string().max(200),
  })
  .strict();

/** A signed delegation request. */
export type DelegationEnvelope = z.output<typeof delegationEnvelopeSchema>;

/** Signs a delegation request with the child's site credential (the parent's side). */
export function sealDelegation(
  credential: string,
  request: DelegationRequest,
  now: Date,
): DelegationEnvelope {
  const payload = JSON.stringify(request);
  const sentAt = now.getTime();
  return { payload, sentAt, mac: federationMac(credential, PURPOSE, sentAt, payload) };
}

/**
 * The request of a genuine, fresh delegation from this site's parent: signed with the shared credential
 * (AUTH.INVALID_DELEGATION_SIGNATURE), sent within the skew (AUTH.DELEGATION_STALE), well formed
 * (FEDERATION.DELEGATION_MALFORMED) and naming the parent this site is registered with (AUTH.UNKNOWN_PARENT_SITE).
 */
export function openDelegation(
  parent: { parentSiteId: string; credential: string },
  envelope: DelegationEnvelope,
  now: Date,
): DelegationRequest {
  const { payload, sentAt, mac } = envelope;
  if (!sameSecret(mac, federationMac(parent.credential, PURPOSE, sentAt, payload)))
    throw new HcnError(
      'AUTH.INVALID_DELEGATION_SIGNATURE',
      "The delegation request is not signed with this site's credential",
    );
  if (Math.abs(now.getTime() - sentAt) > DELEGATION_MAX_SKEW_MS)
    throw new HcnError('AUTH.DELEGATION_STALE', 'The delegation request is too old or from the future', {
      sentAt,
      maxSkewMs: DELEGATION_MAX_SKEW_MS,
    });
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    throw new HcnError('FEDERATION.DELEGATION_MALFORMED', 'The delegation request is not JSON');
  }
  const request = parseOrThrow(
    delegationRequestSchema,
    json,
    'FEDERATION.DELEGATION_MALFORMED',
    'Delegation',
  );
  if (request.parentSiteId !== parent.parentSiteId)
    throw new HcnError('AUTH.UNKNOWN_PARENT_SITE', `Site ${request.parentSiteId} is not this site's parent`, {
      parentSiteId: request.parentSiteId,
    });
  return request;
}
