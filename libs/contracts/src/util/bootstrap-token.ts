import { encodeSignedClaims, readSignedToken } from './signed-token';

/** What a per-node bootstrap token allows: one node id, optionally bound to a domain, until `expiresAt` (epoch s). */
export interface BootstrapClaims {
  readonly nodeId: string;
  readonly domainId?: string;
  readonly expiresAt: number;
}

/** The kind of a bootstrap token (a signed token): `boot.<base64url JSON claims>.<MAC>`. */
export const BOOTSTRAP_TOKEN_KIND = 'boot';
/** The prefix of a bootstrap token. */
export const BOOTSTRAP_TOKEN_PREFIX = `${BOOTSTRAP_TOKEN_KIND}.`;

/** The claims' encoded form, the part of a bootstrap token that its MAC covers. */
export function encodeBootstrapClaims(claims: BootstrapClaims): string {
  return encodeSignedClaims(claims);
}

/**
 * The claims a bootstrap token states and the encoded part they came from, NOT verified (only the hub, holding
 * the key, can verify the MAC): the agent reads its node id from here; undefined for anything else.
 */
export function readBootstrapToken(
  token: string,
): { claims: BootstrapClaims; payload: string; mac: string } | undefined {
  const read = readSignedToken(BOOTSTRAP_TOKEN_KIND, token);
  if (!read) return undefined;
  const c = read.json;
  if (typeof c.nodeId !== 'string' || typeof c.expiresAt !== 'number') return undefined;
  if (c.domainId !== undefined && typeof c.domainId !== 'string') return undefined;
  const claims = {
    nodeId: c.nodeId,
    expiresAt: c.expiresAt,
    ...(c.domainId ? { domainId: c.domainId } : {}),
  };
  return { claims, payload: read.payload, mac: read.mac };
}
