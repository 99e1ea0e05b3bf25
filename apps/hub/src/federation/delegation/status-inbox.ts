import { CommandEngine } from '@hcn/commands';
import {
  DelegationStatusAnswer,
  DelegationStatusReport,
  HcnError,
  delegationStatusReportSchema,
  workloadStream,
} from '@hcn/contracts';
import { ACTIVE_ALLOCATION, AllocationView, DomainError, workloadDecider } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import type { Clock } from '../../tokens';
import { siteActor } from '../site-registry';
import type { DelegationEnvelope } from './delegation-envelope';
import { DELEGATION_STATUS_PURPOSE, checkSigned, readSigned } from './signed-message';

/** The key this site shares with a site it delegates to; undefined for a site it delegates nothing to. */
export type DelegateKeyOf = (siteId: string) => Promise<string | undefined>;

/** Statuses of a report after which nothing runs there any more. */
const ENDED_THERE = new Set(['completed', 'failed', 'lost', 'stopped']);

/**
 * What the site running a delegation is to do after its report: go on while this site keeps the delegation active,
 * stop it while this site stops it, cancel it once this site gave it up (fell back elsewhere, or it was lost or
 * ended here) and it still runs there.
 */
export function actionAfter(
  allocation: AllocationView | undefined,
  reported: DelegationStatusReport['status'],
): DelegationStatusAnswer['action'] {
  if (allocation?.status === 'stopping') return 'stop';
  if (allocation && ACTIVE_ALLOCATION.has(allocation.status)) return 'continue';
  return ENDED_THERE.has(reported) ? 'continue' : 'cancel';
}

/**
 * The delegating site's side of status flowing back (`POST /v1/federation/delegations/:id/status`): a report signed
 * with the key of the site it names, about a delegation made to that very site, recorded on this site's workload
 * stream through the workload decider (RecordSiteStatus: the lifecycle commands nodes' reports use, stamped with the
 * other site's revision and hash; a repeat appends nothing), answered with what that site is to do with it.
 */
export class DelegationStatusInbox {
  constructor(
    private readonly keyOf: DelegateKeyOf,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  /** Opens, checks and records one report about delegation `delegationId` (the path's). */
  async record(delegationId: string, envelope: DelegationEnvelope): Promise<DelegationStatusAnswer> {
    const report = await this.open(delegationId, envelope);
    const engine = new CommandEngine(this.store, workloadDecider);
    const context = {
      correlationId: report.parentWorkloadId,
      causationId: report.eventId,
      actor: siteActor(report.siteId),
      now: this.clock(),
    };
    const command = {
      type: 'RecordSiteStatus' as const,
      allocationId: delegationId,
      siteId: report.siteId,
      siteWorkloadId: report.workloadId,
      status: report.status,
      siteRevision: report.revision,
      ...(report.hash ? { siteHash: report.hash } : {}),
      at: report.at,
      ...(report.pid !== undefined ? { pid: report.pid } : {}),
      ...(report.ready !== undefined ? { ready: report.ready } : {}),
      ...(report.exitCode !== undefined ? { exitCode: report.exitCode } : {}),
      ...(report.signal !== undefined ? { signal: report.signal } : {}),
      ...(report.reason !== undefined ? { reason: report.reason } : {}),
    };
    try {
      const handled = await engine.handle(workloadStream(report.parentWorkloadId), command, context);
      const action = actionAfter(handled.state.allocations[delegationId], report.status);
      return { delegationId, action, recorded: handled.events.map((e) => e.type) };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'WORKLOAD.ALLOCATION_NOT_FOUND')
        throw new HcnError('FEDERATION.DELEGATION_NOT_FOUND', `No delegation ${delegationId} of this site`, {
          delegationId,
        });
      throw error;
    }
  }

  /** The report, signed with the key of the site it names and about the path's delegation. */
  private async open(delegationId: string, envelope: DelegationEnvelope): Promise<DelegationStatusReport> {
    const report = readSigned(
      envelope,
      delegationStatusReportSchema,
      'FEDERATION.DELEGATION_MALFORMED',
      this.clock(),
    );
    const key = await this.keyOf(report.siteId);
    if (!key)
      throw new HcnError(
        'AUTH.INVALID_SITE_CREDENTIAL',
        `Site ${report.siteId} runs no delegation of this site`,
        {
          siteId: report.siteId,
        },
      );
    checkSigned(key, DELEGATION_STATUS_PURPOSE, envelope);
    if (report.delegationId !== delegationId)
      throw new HcnError('FEDERATION.DELEGATION_MALFORMED', 'The report is about another delegation');
    return report;
  }
}
