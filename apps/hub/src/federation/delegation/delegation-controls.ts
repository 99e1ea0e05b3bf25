import {
  DelegationControl,
  DelegationLogsAnswer,
  DelegationLogsRequest,
  DelegationStatusAnswer,
  delegationControlAnswerSchema,
  delegationLogsAnswerSchema,
} from '@hcn/contracts';
import type { Clock } from '../../tokens';
import type { SiteTls } from '../federation.config';
import { SiteCallError, callSite, okBody } from '../site-client';
import { DELEGATION_CONTROL_PURPOSE, DELEGATION_LOGS_PURPOSE, sealSigned } from './signed-message';

/** Where a site this one delegates to answers, and the key the two share; undefined for a site it delegates nothing to. */
export type DelegateOf = (siteId: string) => Promise<{ url: string; key: string } | undefined>;

/** Records a signed status report of a delegation (the status inbox's way), answering what it recorded. */
export type RecordReport = (
  delegationId: string,
  report: { payload: string; sentAt: number; mac: string },
) => Promise<DelegationStatusAnswer>;

/** What the delegating site asks of one of its delegations. */
export interface ControlOrder {
  readonly siteId: string;
  readonly delegationId: string;
  readonly namespace: string;
  readonly action: DelegationControl['action'];
  readonly reason: string;
}

/**
 * The delegating site's control requests to the site running a delegation
 * (`POST /v1/federation/delegations/:id/control` there, signed with the key the two share): status, stop or cancel.
 * The answer, a signed status report, is recorded as any report. A site that runs no such delegation answers
 * FEDERATION.DELEGATION_NOT_FOUND (`found: false`); an unreachable one throws.
 */
export class DelegationControls {
  constructor(
    private readonly siteId: string,
    private readonly delegateOf: DelegateOf,
    private readonly record: RecordReport,
    private readonly tls: SiteTls,
    private readonly clock: Clock,
  ) {}

  /** Sends one control request and records the status it answers. */
  async send(order: ControlOrder): Promise<{ found: boolean; answer?: DelegationStatusAnswer }> {
    const delegate = await this.delegateOf(order.siteId);
    if (!delegate) throw new Error(`no key shared with site ${order.siteId}`);
    const request: DelegationControl = {
      delegationId: order.delegationId,
      parentSiteId: this.siteId,
      namespace: order.namespace,
      action: order.action,
      reason: order.reason.slice(0, 500),
    };
    const body = sealSigned(delegate.key, DELEGATION_CONTROL_PURPOSE, request, this.clock());
    const url = `${delegate.url}/v1/federation/delegations/${order.delegationId}/control`;
    try {
      const answer = delegationControlAnswerSchema.parse(
        okBody(await callSite(url, 'POST', body, { tls: this.tls }), 'delegation control'),
      );
      return { found: true, answer: await this.record(order.delegationId, answer.report) };
    } catch (error) {
      if (error instanceof SiteCallError && error.code === 'FEDERATION.DELEGATION_NOT_FOUND')
        return { found: false };
      throw error;
    }
  }

  /** The output of a delegation at the site running it (`POST .../logs` there); throws when it cannot be read. */
  async logs(
    siteId: string,
    request: Omit<DelegationLogsRequest, 'parentSiteId'>,
  ): Promise<DelegationLogsAnswer> {
    const delegate = await this.delegateOf(siteId);
    if (!delegate) throw new Error(`no key shared with site ${siteId}`);
    const signed: DelegationLogsRequest = { ...request, parentSiteId: this.siteId };
    const body = sealSigned(delegate.key, DELEGATION_LOGS_PURPOSE, signed, this.clock());
    const url = `${delegate.url}/v1/federation/delegations/${request.delegationId}/logs`;
    const answer = await callSite(url, 'POST', body, { tls: this.tls });
    return delegationLogsAnswerSchema.parse(okBody(answer, 'delegation logs'));
  }
}
