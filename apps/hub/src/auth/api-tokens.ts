import { HcnError, namespaceSchema } from '@hcn/contracts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Principal, ROLES } from './principal';

/** One configured API token (`HCN_API_TOKENS` is a JSON array of these). */
export const apiTokenSchema = z
  .object({
    name: z.string().min(1).max(64),
    token: z.string().min(16, 'API tokens must be at least 16 characters'),
    role: z.enum(ROLES),
    namespaces: z
      .array(z.union([z.literal('*'), namespaceSchema]))
      .min(1)
      .default(['*']),
  })
  .strict();

/** A configured API token. */
export type ApiToken = z.output<typeof apiTokenSchema>;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Looks presented bearer tokens up among the configured ones (constant-time comparison of digests). */
export class ApiTokens {
  private readonly tokens: Array<{ digest: Buffer; principal: Principal }>;

  constructor(tokens: readonly ApiToken[]) {
    this.tokens = tokens.map((t) => ({
      digest: digest(t.token),
      principal: { name: t.name, role: t.role, namespaces: t.namespaces },
    }));
  }

  /** The principal of a token; AUTH.* errors for a missing, agent or unknown token. */
  authenticate(
    presented: string | undefined,
    looksLikeAgentCredential: (token: string) => boolean,
  ): Principal {
    if (!presented)
      throw new HcnError('AUTH.TOKEN_REQUIRED', 'An API token is required: Authorization: Bearer <token>');
    const d = digest(presented);
    const match = this.tokens.find((t) => timingSafeEqual(t.digest, d));
    if (match) return match.principal;
    if (looksLikeAgentCredential(presented)) {
      throw new HcnError('AUTH.AGENT_CREDENTIAL_NOT_ALLOWED', 'Agent credentials cannot call the user API');
    }
    throw new HcnError('AUTH.INVALID_TOKEN', 'Unknown API token');
  }
}
