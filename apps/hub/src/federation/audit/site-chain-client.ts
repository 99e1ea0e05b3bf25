import { HcnError, SiteChainPart, siteChainPartSchema } from '@hcn/contracts';
import type { AskingSite, SiteChainSource, SiteHop } from '@hcn/audit';
import type { Clock } from '../../tokens';
import { sealSigned } from '../delegation/signed-message';
import type { SiteTls } from '../federation.config';
import { SiteAnswer, SiteCallError, callSite, okBody } from '../site-client';
import { DELEGATION_CHAIN_PURPOSE } from './delegated-chain';

/** Where a site that took delegations from this one is asked, and the key the two share. */
export type DelegateeOf = (
  siteId: string,
  relation: 'child' | 'peer',
) => Promise<{ url: string; key: string } | undefined>;

/**
 * The federation API as the source of other sites' parts of a chain: `POST /v1/federation/delegations/:id/chain`
 * on the site a hop went to, signed with the key the two share. Throws FEDERATION.SITE_UNKNOWN for a site this
 * one cannot ask, the site's dotted code when it refuses, FEDERATION.CHAIN_ANSWER_MALFORMED for an answer
 * outside the schema.
 */
export class SiteChainClient implements SiteChainSource {
  constructor(
    private readonly delegateeOf: DelegateeOf,
    private readonly tls: SiteTls,
    private readonly clock: Clock,
  ) {}

  /** Asks the hop's site for its stream of the delegated workload. */
  async fetch(hop: SiteHop, asking: AskingSite): Promise<SiteChainPart> {
    const access = await this.delegateeOf(hop.siteId, hop.relation);
    if (!access)
      throw new HcnError('FEDERATION.SITE_UNKNOWN', `Site ${hop.siteId} is not a site this one can ask`, {
        siteId: hop.siteId,
      });
    const request = { siteId: asking.siteId, delegationId: hop.delegationId, namespace: hop.namespace };
    const envelope = sealSigned(access.key, DELEGATION_CHAIN_PURPOSE, request, this.clock());
    const url = `${access.url}/v1/federation/delegations/${hop.delegationId}/chain`;
    const parsed = siteChainPartSchema.safeParse(await this.answerOf(hop.siteId, url, envelope));
    if (!parsed.success)
      throw new HcnError('FEDERATION.CHAIN_ANSWER_MALFORMED', `Site ${hop.siteId} answered no chain`, {
        siteId: hop.siteId,
      });
    return parsed.data;
  }

  /** The site's 2xx answer; its refusal as an error with its code, no answer as FEDERATION.SITE_UNREACHABLE. */
  private async answerOf(siteId: string, url: string, envelope: unknown): Promise<unknown> {
    let answer: SiteAnswer;
    try {
      answer = await callSite(url, 'POST', envelope, { tls: this.tls });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new HcnError('FEDERATION.SITE_UNREACHABLE', `Site ${siteId}: ${message}`, { siteId });
    }
    try {
      return okBody(answer, `chain of site ${siteId}`);
    } catch (error) {
      if (!(error instanceof SiteCallError)) throw error;
      throw new HcnError(error.code, error.message, { siteId, status: error.status });
    }
  }
}
