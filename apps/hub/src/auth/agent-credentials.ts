import {
  BOOTSTRAP_TOKEN_KIND,
  BootstrapClaims,
  HcnError,
  encodeSignedClaims,
  readBootstrapToken,
  sameSecret,
  signedTokenMacInput,
} from '@hcn/contracts';
import { createHmac } from 'node:crypto';

/**
 * Agent credentials: `<nodeId>.<HMAC-SHA256(secret, nodeId)>`. Stateless to verify, and bound to one node id,
 * so an agent cannot report as another node.
 */
export class AgentCredentials {
  constructor(private readonly secret: string) {}

  /** The credential of a node. */
  issue(nodeId: string): string {
    return `${nodeId}.${this.mac(nodeId)}`;
  }

  /** True when `credential` was issued for `nodeId`. */
  verify(credential: string, nodeId: string): boolean {
    return sameSecret(credential, this.issue(nodeId));
  }

  /** The node id a credential was issued for, or throws AUTH.INVALID_AGENT_CREDENTIAL. */
  nodeIdOf(credential: string | undefined): string {
    const nodeId = credential?.split('.')[0] ?? '';
    if (!credential || !this.verify(credential, nodeId)) {
      throw new HcnError('AUTH.INVALID_AGENT_CREDENTIAL', 'Missing or invalid agent credential');
    }
    return nodeId;
  }

  /** The hub's key for secrets in workload specs (sealed before they are stored). */
  secretKey(): string {
    return this.mac('secret-env');
  }

  /** The key this node's commands are signed with (derived, never stored; sent only when the node registers). */
  commandKey(nodeId: string): string {
    return this.mac(`command-key|${nodeId}`);
  }

  /**
   * An admin-issued token that lets an agent which lost its credential register an existing node again:
   * `reenrol.<nodeId>.<expiry, epoch seconds>.<HMAC>`, valid until it expires.
   */
  issueReenrolment(nodeId: string, expiresAt: Date): string {
    const expiry = Math.floor(expiresAt.getTime() / 1000);
    return `reenrol.${nodeId}.${expiry}.${this.mac(`reenrol|${nodeId}|${expiry}`)}`;
  }

  /** True when `token` is this node's credential, or an unexpired re-enrolment token for it. */
  mayReregister(token: string | undefined, nodeId: string, now: Date): boolean {
    if (!token) return false;
    if (this.verify(token, nodeId)) return true;
    const [kind, id, expiry] = token.split('.');
    if (kind !== 'reenrol' || id !== nodeId || Number(expiry) * 1000 <= now.getTime()) return false;
    return sameSecret(token, this.issueReenrolment(nodeId, new Date(Number(expiry) * 1000)));
  }

  /**
   * An admin-issued per-node bootstrap token: registers exactly one new node (`nodeId`, optionally only in
   * `domainId`) until it expires: `boot.<base64url JSON claims>.<HMAC>`. Once that node exists the token is spent:
   * registering it again needs the node's credential, as for any node.
   */
  issueBootstrap(claims: BootstrapClaims): string {
    return this.issueSigned(BOOTSTRAP_TOKEN_KIND, claims);
  }

  /** The claims of a genuine, unexpired bootstrap token; undefined for anything else. */
  bootstrapClaims(token: string, now: Date): BootstrapClaims | undefined {
    const read = readBootstrapToken(token);
    if (!read || !this.signedBy(BOOTSTRAP_TOKEN_KIND, read)) return undefined;
    return read.claims.expiresAt * 1000 > now.getTime() ? read.claims : undefined;
  }

  /** A signed claim token of `kind` (`<kind>.<base64url JSON claims>.<MAC>`): bootstrap and federation join tokens. */
  issueSigned(kind: string, claims: object): string {
    const payload = encodeSignedClaims(claims);
    return `${kind}.${payload}.${this.mac(signedTokenMacInput(kind, payload))}`;
  }

  /** True when a signed token of `kind`, as read, carries this hub's MAC over its claims. */
  signedBy(kind: string, read: { payload: string; mac: string }): boolean {
    return sameSecret(read.mac, this.mac(signedTokenMacInput(kind, read.payload)));
  }

  /** A secret derived from the hub's key for one purpose (`label` names it and what it is bound to); never stored. */
  derive(label: string): string {
    return this.mac(label);
  }

  private mac(value: string): string {
    return createHmac('sha256', this.secret).update(value).digest('base64url');
  }
}

/** Compares a presented join token with the configured one in constant time. */
export function joinTokenMatches(presented: string, expected: string): boolean {
  return sameSecret(presented, expected);
}

/** Extracts a bearer token from an Authorization header. */
export function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match?.[1];
}
