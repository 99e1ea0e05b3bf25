import { readSignedToken } from './signed-token';

/** What a federation join token allows: one child site id to register with the issuing parent until `expiresAt` (epoch s). */
export interface FederationJoinClaims {
  readonly siteId: string;
  readonly expiresAt: number;
}

/** The kind of a federation join token (a signed token): `fjoin.<base64url JSON claims>.<MAC>`. */
export const FEDERATION_JOIN_TOKEN_KIND = 'fjoin';

/**
 * The claims a federation join token states, NOT verified (only the parent, holding the key, can): the child checks
 * at start-up that the token names its own site id. Undefined for anything else.
 */
export function readFederationJoinToken(
  token: string,
): { claims: FederationJoinClaims; payload: string; mac: string } | undefined {
  const read = readSignedToken(FEDERATION_JOIN_TOKEN_KIND, token);
  if (!read) return undefined;
  const { siteId, expiresAt } = read.json;
  if (typeof siteId !== 'string' || typeof expiresAt !== 'number') return undefined;
  return { claims: { siteId, expiresAt }, payload: read.payload, mac: read.mac };
}

/** The prefix of a site credential: `site.<siteId>.<secret>` (the parent keeps only its SHA-256 digest). */
export const SITE_CREDENTIAL_KIND = 'site';

/** The site id a site credential names (not verified: the parent compares its digest with the registered one). */
export function siteIdOfCredential(credential: string): string | undefined {
  const [kind, siteId, secret, ...rest] = credential.split('.');
  if (kind !== SITE_CREDENTIAL_KIND || !siteId || !secret || rest.length > 0) return undefined;
  return siteId;
}
