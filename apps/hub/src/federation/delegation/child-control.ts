import {
  DelegationControl,
  DelegationControlAnswer,
  HcnError,
  delegationControlSchema,
} from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { submittedWorkloadId } from '../../commands/workload-command';
import type { Clock } from '../../tokens';
import { delegationKey } from './child-delegations';
import type { DelegationEnvelope } from './delegation-envelope';
import { DelegatedWorkload, loadDelegated, stopDelegated } from './delegated-workloads';
import {
  DELEGATION_CONTROL_PURPOSE,
  DELEGATION_STATUS_PURPOSE,
  checkSigned,
  readSigned,
  sealSigned,
} from './signed-message';
import type { DelegatorOf } from './status-relay';
import { statusReport } from './status-report';

/**
 * The running site's side of a delegating site's control requests (`POST /v1/federation/delegations/:id/control`):
 * signed with the key the two share, for a delegation that site made here: its current status (reconciling after a
 * partition), a stop (the user stopped, restarted or deleted the workload there) or a cancel (that site fell back or
 * gave the delegation up). Answers the status after it; the stop's effect follows in status reports.
 */
export class ChildControl {
  constructor(
    private readonly siteId: () => string | undefined,
    private readonly delegatorOf: DelegatorOf,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  /** Opens, checks and carries out one control request for delegation `delegationId` (the path's). */
  async control(delegationId: string, envelope: DelegationEnvelope): Promise<DelegationControlAnswer> {
    const { request, key } = this.open(delegationId, envelope);
    const found = await this.find(request);
    if (request.action === 'status') return this.answer(found, key);
    const verb = request.action === 'cancel' ? 'cancelled' : 'stopped';
    const reason = `${verb} by site ${request.parentSiteId}: ${request.reason}`.slice(0, 500);
    await stopDelegated(this.store, this.clock, found.state.workloadId ?? '', found.from, reason);
    return this.answer(await this.find(request), key);
  }

  /** The request, signed by the site it names (a site this one shares a key with) and about the path's delegation. */
  private open(
    delegationId: string,
    envelope: DelegationEnvelope,
  ): { request: DelegationControl; key: string } {
    const request = readSigned(
      envelope,
      delegationControlSchema,
      'FEDERATION.DELEGATION_MALFORMED',
      this.clock(),
    );
    const delegator = this.delegatorOf(request.parentSiteId);
    if (!delegator)
      throw new HcnError('AUTH.UNKNOWN_PARENT_SITE', `Site ${request.parentSiteId} delegates nothing here`, {
        parentSiteId: request.parentSiteId,
      });
    checkSigned(delegator.key, DELEGATION_CONTROL_PURPOSE, envelope);
    if (request.delegationId !== delegationId)
      throw new HcnError('FEDERATION.DELEGATION_MALFORMED', 'The request is about another delegation');
    return { request, key: delegator.key };
  }

  /** The workload this site runs for the delegation, if that site made it here (FEDERATION.DELEGATION_NOT_FOUND). */
  private async find(request: DelegationControl): Promise<DelegatedWorkload> {
    const { delegationId, namespace, parentSiteId } = request;
    const workloadId = submittedWorkloadId(namespace, delegationKey(delegationId));
    const found = await loadDelegated(this.store, workloadId);
    if (!found || found.from.delegationId !== delegationId || found.from.siteId !== parentSiteId)
      throw new HcnError('FEDERATION.DELEGATION_NOT_FOUND', `This site runs no delegation ${delegationId}`, {
        delegationId,
      });
    return found;
  }

  /** The status after the request, signed as a status report (the delegating site records it as one). */
  private answer(found: DelegatedWorkload, key: string): DelegationControlAnswer {
    const report = statusReport(this.siteId() ?? '', found.from, found.state, found.last);
    const sealed = sealSigned(key, DELEGATION_STATUS_PURPOSE, report, this.clock());
    return { delegationId: found.from.delegationId, report: sealed };
  }
}
