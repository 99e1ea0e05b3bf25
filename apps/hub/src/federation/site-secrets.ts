import {
  FEDERATION_JOIN_TOKEN_KIND,
  FederationJoinClaims,
  SITE_CREDENTIAL_KIND,
  readFederationJoinToken,
} from '@hcn/contracts';
import { createHash } from 'node:crypto';
import type { AgentCredentials } from '../auth/agent-credentials';

/** SHA-256 of a secret, hex: what the log keeps of join tokens and site credentials. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Federation join tokens and site credentials of this (parent) site, on the hub's key (the same signed-claims tokens
 * as per-node bootstrap tokens). A join token names one child site and expires; a site credential is derived from
 * the site id and the join token it registered with, so a retried registration gets the same credential, and a new
 * registration (after a deregistration) voids the old one. The log keeps only digests of both.
 */
export class SiteSecrets {
  constructor(private readonly credentials: AgentCredentials) {}

  /** A join token for `siteId`, valid until `expiresAt`. */
  issueJoinToken(siteId: string, expiresAt: Date): string {
    const claims: FederationJoinClaims = { siteId, expiresAt: Math.floor(expiresAt.getTime() / 1000) };
    return this.credentials.issueSigned(FEDERATION_JOIN_TOKEN_KIND, claims);
  }

  /** The claims of a join token this site issued (expired or not: the site decider judges expiry); else undefined. */
  joinClaims(token: string): FederationJoinClaims | undefined {
    const read = readFederationJoinToken(token);
    return read && this.credentials.signedBy(FEDERATION_JOIN_TOKEN_KIND, read) ? read.claims : undefined;
  }

  /** The credential of a site registered with the join token of digest `joinTokenDigest`. */
  credentialFor(siteId: string, joinTokenDigest: string): string {
    const secret = this.credentials.derive(`site-credential|${siteId}|${joinTokenDigest}`);
    return `${SITE_CREDENTIAL_KIND}.${siteId}.${secret}`;
  }
}
