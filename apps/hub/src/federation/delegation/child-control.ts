import {
  DelegationControlAnswer,
  DelegationLogsAnswer,
  HcnError,
  delegationControlSchema,
  delegationLogsRequestSchema,
} from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { submittedWorkloadId } from '../../commands/workload-command';
import type { Clock } from '../../tokens';
import { delegationKey } from './child-delegations';
import type { DelegationEnvelope } from './delegation-envelope';
import { DelegatedWorkload, loadDelegated, stopDelegated } from './delegated-workloads';
import type { z } from 'zod';
import {
  DELEGATION_CONTROL_PURPOSE,
  DELEGATION_LOGS_PURPOSE,
  DELEGATION_STATUS_PURPOSE,
  checkSigned,
  readSigned,
  sealSigned,
} from './signed-message';
import type { DelegatorOf } from './status-relay';
import { statusReport } from './status-report';

/** The last lines of an allocation's output (the hub's log store). */
export type TailLogs = (
  allocationId: string,
  lines: number,
  stream?: 'stdout' | 'stderr',
) => Promise<Array<{ stream: string; line: string }>>;

/** What every request of a delegating site names: the delegation, that site, the namespace. */
interface DelegationRequestBase {
  readonly delegationId: string;
  readonly parentSiteId: string;
  readonly namespace: string;
}

/**
 * The running site's side of a delegating site's control requests (`POST /v1/federation/delegations/:id/control`):
 * signed with the key the two share, for a delegation that site made here: its current status (reconciling after a
 * partition), a stop (the user stopped, restarted or deleted the workload there) or a cancel (that site fell back or
 * gave the delegation up). Answers the status after it; the stop's effect follows in status reports. Also its output
 * on request (`.../logs`).
 */
export class ChildControl {
  constructor(
    private readonly siteId: () => string | undefined,
    private readonly delegatorOf: DelegatorOf,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly tail?: TailLogs,
  ) {}

  /** Opens, checks and carries out one control request for delegation `delegationId` (the path's). */
  async control(delegationId: string, envelope: DelegationEnvelope): Promise<DelegationControlAnswer> {
    const { request, key } = this.open(
      delegationId,
      envelope,
      delegationControlSchema,
      DELEGATION_CONTROL_PURPOSE,
    );
    const found = await this.find(request);
    if (request.action === 'status') return this.answer(found, key);
    const verb = request.action === 'cancel' ? 'cancelled' : 'stopped';
    const reason = `${verb} by site ${request.parentSiteId}: ${request.reason}`.slice(0, 500);
    await stopDelegated(this.store, this.clock, found.state.workloadId ?? '', found.from, reason);
    return this.answer(await this.find(request), key);
  }

  /** The output of the delegation's current allocations here, the last `lines` of each. */
  async logs(delegationId: string, envelope: DelegationEnvelope): Promise<DelegationLogsAnswer> {
    const schema = delegationLogsRequestSchema;
    const { request } = this.open(delegationId, envelope, schema, DELEGATION_LOGS_PURPOSE);
    const { state } = await this.find(request);
    const lines: DelegationLogsAnswer['lines'] = [];
    for (const instance of state.instances)
      if (instance.allocationId && this.tail)
        lines.push(...(await this.tail(instance.allocationId, request.lines, request.stream)));
    return { delegationId, workloadId: state.workloadId ?? '', lines };
  }

  /** The request, signed by the site it names (a site this one shares a key with) and about the path's delegation. */
  private open<S extends z.ZodType<DelegationRequestBase>>(
    delegationId: string,
    envelope: DelegationEnvelope,
    schema: S,
    purpose: string,
  ): { request: z.output<S>; key: string } {
    const request = readSigned(envelope, schema, 'FEDERATION.DELEGATION_MALFORMED', this.clock());
    const delegator = this.delegatorOf(request.parentSiteId);
    if (!delegator)
      throw new HcnError('AUTH.UNKNOWN_PARENT_SITE', `Site ${request.parentSiteId} delegates nothing here`, {
        parentSiteId: request.parentSiteId,
      });
    checkSigned(delegator.key, purpose, envelope);
    if (request.delegationId !== delegationId)
      throw new HcnError('FEDERATION.DELEGATION_MALFORMED', 'The request is about another delegation');
    return { request, key: delegator.key };
  }

  /** The workload this site runs for the delegation, if that site made it here (FEDERATION.DELEGATION_NOT_FOUND). */
  private async find(request: DelegationRequestBase): Promise<DelegatedWorkload> {
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
