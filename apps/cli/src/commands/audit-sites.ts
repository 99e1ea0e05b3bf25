import type {
  SiteChainSource,
  SitesReport,
  StitchedChain,
  StitchedSitePart,
  StitchedVerification,
} from '@hcn/audit';
import { siteChainPartSchema, workloadStream } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { CliError, EXIT } from '../errors';
import { HubClient, seg } from '../hub-client';

/**
 * Other sites' parts of a workload's chain through this site's hub (`GET /v1/audit/workloads/:id/sites/:delegation`:
 * the hub asks the site with the key the two share), checked here against the log: the hub only relays them.
 */
function hubSiteSource(hub: HubClient): SiteChainSource {
  return {
    fetch: async (hop, asking) => {
      const path = `/v1/audit/workloads/${seg(asking.workloadId)}/sites/${seg(hop.delegationId)}`;
      const parsed = siteChainPartSchema.safeParse(await hub.get(path));
      if (!parsed.success)
        throw new CliError(
          'CLI.SITE_PART_MALFORMED',
          `the hub relayed no chain for ${hop.siteId}`,
          EXIT.ERROR,
        );
      return parsed.data;
    },
  };
}

/** This site's id (what another site's delegatedFrom must name), from the hub; '' when it cannot tell. */
function siteIdOf(hub: HubClient): Promise<string> {
  return hub
    .get<{ siteId?: string | null }>('/v1/federation/link')
    .then((link) => link?.siteId ?? '')
    .catch(() => '');
}

/** The parts of the sites a workload went to (none when it never left this site), checked against the log. */
async function partsOf(store: EventStore, workloadId: string, hub: HubClient) {
  const { buildChain, readWorkload, siteHopsOf, sitePartsOf } = await import('@hcn/audit');
  const events = await readWorkload(store, workloadId);
  const chain = buildChain(events);
  const hops = siteHopsOf(events, chain);
  if (hops.length === 0) return { chain, parts: [] as StitchedSitePart[] };
  // asked once, only when there are hops
  const siteId = await siteIdOf(hub);
  return {
    chain,
    parts: await sitePartsOf(hops, { siteId, workloadId: chain.workloadId }, hubSiteSource(hub)),
  };
}

/** `hcn audit replay`: the chain from the log, stitched with the parts of the sites it was delegated to. */
export async function stitchedChainFromLog(
  store: EventStore,
  workloadId: string,
  hub: HubClient,
): Promise<StitchedChain> {
  const { stitchChain } = await import('@hcn/audit');
  const { chain, parts } = await partsOf(store, workloadId, hub);
  return stitchChain(chain, parts);
}

/** `hcn audit verify --workload`: the workload's stream in the log and every other site's part. */
export async function verifyStitchedFromLog(
  store: EventStore,
  workloadId: string,
  hub: HubClient,
): Promise<StitchedVerification> {
  const { verifyStitched } = await import('@hcn/audit');
  const { verifyHashChain } = await import('@hcn/eventstore');
  const { chain, parts } = await partsOf(store, workloadId, hub);
  const local = await verifyHashChain(store, { streamId: workloadStream(chain.workloadId) });
  return verifyStitched(chain.workloadId, local, parts);
}

/** `hcn audit verify --sites`: every other site's part of every workload of the log handed to another site. */
export async function verifyAllSitesFromLog(store: EventStore, hub: HubClient): Promise<SitesReport> {
  const { verifySiteParts } = await import('@hcn/audit');
  return verifySiteParts(store, await siteIdOf(hub), hubSiteSource(hub));
}

/** The exit status of a stitched verify: 0 intact, 1 something broken, 3 nothing broken but a site not read. */
export function stitchedExit(report: StitchedVerification): number {
  if (report.ok) return EXIT.OK;
  const broken = !report.local.ok || report.sites.some((s) => s.verification && !s.verification.ok);
  return broken ? EXIT.ERROR : EXIT.UNREACHABLE;
}
