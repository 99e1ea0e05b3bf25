import type { RecordedHcnEvent, SiteChainPart } from '@hcn/contracts';
import type { HashChainReport } from '@hcn/eventstore';
import { buildChain } from '../chain/build-chain';
import type { WorkloadChain } from '../chain/chain.model';
import type {
  SiteHop,
  SitePartUnavailable,
  StitchedChain,
  StitchedSitePart,
  StitchedVerification,
} from './stitched.model';
import { AskingSite, verifySitePart } from './verify-site-part';

/**
 * Where another site's part of a chain comes from (the federation API in the hub; a port, so stitching stays
 * pure). Throws when the part cannot be had; an error with a dotted `code` keeps it.
 */
export interface SiteChainSource {
  fetch(hop: SiteHop, asking: AskingSite): Promise<SiteChainPart>;
}

/** Finds the hand-overs to other sites in this site's workload stream (from the delegation events). */
export type SiteHopsOf = (events: readonly RecordedHcnEvent[]) => SiteHop[];

/** Why fetching a part failed, as the part shows it. */
export function unavailableOf(error: unknown): SitePartUnavailable {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: typeof code === 'string' && code.includes('.') ? code : 'FEDERATION.SITE_UNREACHABLE',
    message,
  };
}

/** One site's part from its answer: checked, and its chain rebuilt from the checked events when they decode. */
export async function sitePartOf(
  hop: SiteHop,
  asking: AskingSite,
  part: SiteChainPart,
): Promise<StitchedSitePart> {
  const { verification, events } = await verifySitePart(part, hop, asking);
  let chain: WorkloadChain | undefined;
  try {
    chain = events ? buildChain(events) : undefined;
  } catch {
    chain = undefined; // not a workload stream: verification already says so (origin)
  }
  const { siteId, delegationId, hopSeq } = hop;
  const { workloadId, streamId, head } = part;
  return {
    siteId,
    delegationId,
    ...(hopSeq !== undefined ? { hopSeq } : {}),
    workloadId,
    streamId,
    head,
    verification,
    ...(chain ? { chain } : {}),
  };
}

/** Asks `source` for the part of every hop (in parallel) and checks each; a part that cannot be had says why. */
export async function sitePartsOf(
  hops: readonly SiteHop[],
  asking: AskingSite,
  source: SiteChainSource,
): Promise<StitchedSitePart[]> {
  return Promise.all(
    hops.map(async (hop): Promise<StitchedSitePart> => {
      let part: SiteChainPart;
      try {
        part = await source.fetch(hop, asking);
      } catch (error) {
        const { siteId, delegationId, hopSeq } = hop;
        return {
          siteId,
          delegationId,
          ...(hopSeq !== undefined ? { hopSeq } : {}),
          unavailable: unavailableOf(error),
        };
      }
      return sitePartOf(hop, asking, part);
    }),
  );
}

/** This site's chain with the other sites' parts, each at the hop that handed the workload over. */
export function stitchChain(chain: WorkloadChain, parts: readonly StitchedSitePart[]): StitchedChain {
  return { ...chain, sites: parts };
}

/**
 * verify of a stitched chain: this site's stream report and every part's verification. `ok` only when this
 * site's stream holds and every part was read and holds; `complete` false when some part could not be read.
 */
export function verifyStitched(
  workloadId: string,
  local: HashChainReport,
  parts: readonly StitchedSitePart[],
): StitchedVerification {
  const complete = parts.every((p) => p.unavailable === undefined);
  const ok = local.ok && complete && parts.every((p) => p.verification?.ok === true);
  const sites = parts.map(({ chain: _chain, ...rest }) => rest);
  return { ok, complete, workloadId, local, sites };
}
