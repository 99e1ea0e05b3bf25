import {
  BOOTSTRAP_TOKEN_PREFIX,
  BootstrapClaims,
  HcnError,
  encodeBootstrapClaims,
  readBootstrapToken,
  sameSecret,
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
    const payload = encodeBootstrapClaims(claims);
    return `${BOOTSTRAP_TOKEN_PREFIX}${payload}.${this.mac(`boot|${payload}`)}`;
  }

  /** The claims of a genuine, unexpired bootstrap token; undefined for anything else. */
  bootstrapClaims(token: string, now: Date): BootstrapClaims | undefined {
    const read = readBootstrapToken(token);
    if (!read || !sameSecret(read.mac, this.mac(`boot|${read.payload}`))) return undefined;
    return read.claims.expiresAt * 1000 > now.getTime() ? read.claims : undefined;
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
