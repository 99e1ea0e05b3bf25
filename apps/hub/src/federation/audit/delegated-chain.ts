import {
  HcnError,
  SiteChainPart,
  SiteChainRequest,
  StoredEventWire,
  formatPosition,
  siteChainRequestSchema,
  workloadStream,
} from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { submittedWorkloadId } from '../../commands/workload-command';
import type { Clock } from '../../tokens';
import { delegationKey } from '../delegation/child-delegations';
import type { DelegationEnvelope } from '../delegation/delegation-envelope';
import { loadDelegated } from '../delegation/delegated-workloads';
import { checkSigned, readSigned } from '../delegation/signed-message';
import type { DelegatorOf } from '../delegation/status-relay';

/** Purpose of a request for a delegated workload's stream (its MAC names it, so no other message stands for it). */
export const DELEGATION_CHAIN_PURPOSE = 'hcn-delegation-chain';

/** Stored events read per page of a delegated workload's stream. */
const PAGE = 1000;

/**
 * The running site's side of stitched audit (`POST /v1/federation/delegations/:id/chain`): a site that delegated a
 * workload here asks, signed with the key the two share, for that workload's stream. Only the delegating site
 * gets it: another site, or a workload this site runs for another site or for itself, is
 * FEDERATION.DELEGATION_NOT_FOUND, the same answer as for no workload at all. The answer is every stored event (the
 * stored form the hash chain covers, links included) and the stream's head, for the asking site to check.
 */
export class DelegatedChainReader {
  constructor(
    private readonly siteId: () => string | undefined,
    private readonly delegatorOf: DelegatorOf,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  /** Opens and checks one request for delegation `delegationId` (the path's) and answers the stream. */
  async read(delegationId: string, envelope: DelegationEnvelope): Promise<SiteChainPart> {
    const request = this.open(delegationId, envelope);
    const workloadId = submittedWorkloadId(request.namespace, delegationKey(delegationId));
    const found = await loadDelegated(this.store, workloadId);
    if (!found || found.from.delegationId !== delegationId || found.from.siteId !== request.siteId)
      throw new HcnError('FEDERATION.DELEGATION_NOT_FOUND', `This site runs no delegation ${delegationId}`, {
        delegationId,
      });
    const streamId = workloadStream(workloadId);
    const events = await this.storedEvents(streamId);
    const last = events[events.length - 1];
    const hash = (last?.metadata as { hash?: unknown } | undefined)?.hash;
    if (!last || typeof hash !== 'string')
      throw new HcnError('FEDERATION.CHAIN_UNHASHED', `Stream ${streamId} keeps no hash chain`, { streamId });
    const head = { revision: last.revision, hash };
    return { siteId: this.siteId() ?? '', delegationId, workloadId, streamId, head, events };
  }

  /** The request, signed by the site it names (one this site shares a key with), about the path's delegation. */
  private open(delegationId: string, envelope: DelegationEnvelope): SiteChainRequest {
    const now = this.clock();
    const request = readSigned(envelope, siteChainRequestSchema, 'FEDERATION.CHAIN_REQUEST_MALFORMED', now);
    const delegator = this.delegatorOf(request.siteId);
    if (!delegator)
      throw new HcnError('AUTH.UNKNOWN_PARENT_SITE', `Site ${request.siteId} delegates nothing here`, {
        siteId: request.siteId,
      });
    checkSigned(delegator.key, DELEGATION_CHAIN_PURPOSE, envelope);
    if (request.delegationId !== delegationId)
      throw new HcnError('FEDERATION.CHAIN_REQUEST_MALFORMED', 'The request is about another delegation');
    return request;
  }

  /** Every stored event of the stream as its store keeps it (what the hash chain covers), in revision order. */
  private async storedEvents(streamId: string): Promise<StoredEventWire[]> {
    const out: StoredEventWire[] = [];
    let after: Parameters<EventStore['readRaw']>[0]['after'];
    for (;;) {
      const page = await this.store.readRaw({ streamId, after, maxCount: PAGE });
      for (const { eventId, type, revision, position, recordedAt, data, metadata } of page.events)
        out.push({ eventId, type, revision, position: formatPosition(position), recordedAt, data, metadata });
      if (page.exhausted || !page.checkpoint) return out;
      after = page.checkpoint;
    }
  }
}
