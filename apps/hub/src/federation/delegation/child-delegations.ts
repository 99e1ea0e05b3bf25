import { DelegationAnswer, DelegationRequest, HcnError } from '@hcn/contracts';
import type { CommandBus } from '@nestjs/cqrs';
import type { Principal } from '../../auth/principal';
import { SubmitWorkloadsCommand } from '../../commands/submit-workloads/submit-workloads.command';
import type { SubmitWorkloadsResult } from '../../commands/submit-workloads/submit-workloads.handler';
import type { ParentCredential } from '../site-link';
import { DelegationEnvelope, openDelegation } from './delegation-envelope';

/** The idempotency key of a delegation's workload on the child: one workload per delegation id. */
export const delegationKey = (delegationId: string): string => `delegation:${delegationId}`;

/** True when a site serving `served` (HCN_FEDERATION_NAMESPACES, `*`: all) runs delegated work of `namespace`. */
export function servesNamespace(served: readonly string[], namespace: string): boolean {
  return served.includes('*') || served.includes(namespace);
}

/** The site a request's payload names as delegating, unverified (it picks the key the MAC is checked with). */
function namedSite(payload: string): string | undefined {
  try {
    const named = (JSON.parse(payload) as { parentSiteId?: unknown } | null)?.parentSiteId;
    return typeof named === 'string' ? named : undefined;
  } catch {
    return undefined;
  }
}

/** Refusals of an admitted delegation that are answers (rejected, with reasons), not bad input. */
function rejectionOf(request: DelegationRequest, error: unknown): DelegationAnswer | undefined {
  if (!(error instanceof HcnError)) return undefined;
  const { delegationId } = request;
  if (error.code.startsWith('QUOTA.'))
    return { outcome: 'rejected', delegationId, reason: 'quota', code: error.code, detail: error.message };
  if (error.code !== 'WORKLOAD.UNSCHEDULABLE') return undefined;
  const reasons = (error.details as { reasons?: Record<string, number> } | undefined)?.reasons ?? {};
  return {
    outcome: 'rejected',
    delegationId,
    reason: 'unschedulable',
    code: error.code,
    detail: error.message,
    reasons,
  };
}

/**
 * The child's side of a delegation: a signed request from the parent this site registered with (or from a configured
 * peer, signed with the secret the two share), for a namespace it serves, submitted as any workload (own quotas, policies and descent, in its own log) under the idempotency key
 * of the delegation id and placed whole now or refused; the answer is synchronous.
 */
export class ChildDelegations {
  constructor(
    private readonly parent: () => ParentCredential | undefined,
    private readonly served: readonly string[],
    private readonly commands: CommandBus,
    /** Per configured peer: the secret the two share (a peer delegates here as the parent does). */
    private readonly peerSecrets: Readonly<Record<string, string>> = {},
  ) {}

  /**
   * The delegating site and the key its request must be signed with: a configured peer the request names, else this
   * site's parent (AUTH.UNKNOWN_PARENT_SITE when it has none).
   */
  private delegatorOf(envelope: DelegationEnvelope): ParentCredential {
    const named = namedSite(envelope.payload);
    const peerSecret =
      named !== undefined && Object.hasOwn(this.peerSecrets, named) ? this.peerSecrets[named] : undefined;
    if (named !== undefined && peerSecret !== undefined)
      return { parentSiteId: named, credential: peerSecret };
    const parent = this.parent();
    if (!parent)
      throw new HcnError('AUTH.UNKNOWN_PARENT_SITE', 'This site has no parent or peer that delegates to it');
    return parent;
  }

  /** Opens, checks and runs one delegation request; bad input throws (4xx), quota or no fit is a rejection. */
  async accept(envelope: DelegationEnvelope, now: Date): Promise<DelegationAnswer> {
    const parent = this.delegatorOf(envelope);
    const request = openDelegation(parent, envelope, now);
    if (!servesNamespace(this.served, request.namespace))
      throw new HcnError(
        'FEDERATION.NAMESPACE_NOT_SERVED',
        `This site runs no delegated work of namespace ${request.namespace}`,
        { namespace: request.namespace },
      );
    const principal: Principal = {
      name: `site:${parent.parentSiteId}`,
      role: 'operator',
      namespaces: [request.namespace],
    };
    const { delegationId, parentWorkloadId: workloadId } = request;
    const item = {
      spec: request.spec,
      idempotencyKey: delegationKey(delegationId),
      delegatedFrom: { siteId: parent.parentSiteId, workloadId, delegationId },
    };
    try {
      const result: SubmitWorkloadsResult = await this.commands.execute(
        new SubmitWorkloadsCommand(principal, [item], true, true),
      );
      const [answer] = result.workloads;
      const { workloadId: childId, status, created } = answer;
      return { outcome: 'accepted', delegationId, workloadId: childId, status, created };
    } catch (error) {
      const rejection = rejectionOf(request, error);
      if (rejection) return rejection;
      throw error;
    }
  }
}
