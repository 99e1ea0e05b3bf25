import {
  SiteChainSource,
  SiteHop,
  StitchedChain,
  StitchedSitePart,
  StitchedVerification,
  WorkloadChain,
  buildChain,
  siteHopsOf,
  sitePartsOf,
  stitchChain,
  unavailableOf,
  verifyStitched,
} from '@hcn/audit';
import { HcnError, RecordedHcnEvent, SiteChainPart, workloadStream } from '@hcn/contracts';
import { EventStore, verifyHashChain } from '@hcn/eventstore';
import { SiteChainClient } from '../../../federation/audit/site-chain-client';
import type { Federation } from '../../../federation/federation';
import type { Clock } from '../../../tokens';

/** The federation API as the source of other sites' parts (a registered child's or a configured peer's). */
export function siteChainSource(federation: Federation, clock: Clock): SiteChainSource {
  const targetOf = (siteId: string, relation: 'child' | 'peer') =>
    federation.delegationTargetOf(siteId, relation);
  return new SiteChainClient(targetOf, federation.config.tls, clock);
}

/**
 * Stitched audit of one workload of this site: its chain from its stream, the parts of the sites it was
 * delegated to (asked through `source`, checked here), and verify over both.
 */
export class StitchedAudit {
  constructor(
    private readonly siteId: string,
    private readonly source: SiteChainSource,
  ) {}

  /** The other sites' parts of the workload's chain (none when it was never delegated to a site). */
  parts(events: readonly RecordedHcnEvent[], chain: WorkloadChain): Promise<StitchedSitePart[]> {
    const hops = siteHopsOf(events, chain);
    if (hops.length === 0) return Promise.resolve([]);
    return sitePartsOf(hops, { siteId: this.siteId, workloadId: chain.workloadId }, this.source);
  }

  /** The workload's chain stitched with the chains of the sites it went to. */
  async chain(events: readonly RecordedHcnEvent[]): Promise<StitchedChain> {
    const chain = buildChain(events);
    return stitchChain(chain, await this.parts(events, chain));
  }

  /** Recomputes this site's stream of the workload and every other site's part. */
  async verify(store: EventStore, events: readonly RecordedHcnEvent[]): Promise<StitchedVerification> {
    const chain = buildChain(events);
    const [local, parts] = await Promise.all([
      verifyHashChain(store, { streamId: workloadStream(chain.workloadId) }),
      this.parts(events, chain),
    ]);
    return verifyStitched(chain.workloadId, local, parts);
  }

  /**
   * One other site's part as that site answered it, unchecked (`hcn audit` checks it against the log itself);
   * FEDERATION.DELEGATION_NOT_FOUND when the workload's stream holds no such hand-over.
   */
  async rawPart(events: readonly RecordedHcnEvent[], delegationId: string): Promise<SiteChainPart> {
    const chain = buildChain(events);
    const hop: SiteHop | undefined = siteHopsOf(events, chain).find((h) => h.delegationId === delegationId);
    if (!hop)
      throw new HcnError(
        'FEDERATION.DELEGATION_NOT_FOUND',
        `Workload ${chain.workloadId} has no delegation ${delegationId}`,
        {
          delegationId,
        },
      );
    try {
      return await this.source.fetch(hop, { siteId: this.siteId, workloadId: chain.workloadId });
    } catch (error) {
      // the site's refusal or silence is not the caller's fault: 502 with the site's code in the details
      const { code, message } = unavailableOf(error);
      throw new HcnError('FEDERATION.SITE_PART_UNAVAILABLE', `Site ${hop.siteId}: ${code}: ${message}`, {
        siteId: hop.siteId,
        siteCode: code,
      });
    }
  }
}
