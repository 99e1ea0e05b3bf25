import { HcnError, SiteChainPart, siteChainPartSchema } from '@hcn/contracts';
import type { AskingSite, SiteChainSource, SiteHop } from '@hcn/audit';
import type { Clock } from '../../tokens';
import { sealSigned } from '../delegation/signed-message';
import type { SiteTls } from '../federation.config';
import { callSite, okBody } from '../site-client';
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
    const answer = await callSite(url, 'POST', envelope, { tls: this.tls });
    const parsed = siteChainPartSchema.safeParse(okBody(answer, `chain of site ${hop.siteId}`));
    if (!parsed.success)
      throw new HcnError('FEDERATION.CHAIN_ANSWER_MALFORMED', `Site ${hop.siteId} answered no chain`, {
        siteId: hop.siteId,
      });
    return parsed.data;
  }
}
