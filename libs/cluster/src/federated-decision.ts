import { FederationBasisRecord, FederationTier, SiteRelation, siteOfPlace } from '@hcn/contracts';
import { Decision, PlacementRequest, SchedulingIndex, decide } from '@hcn/scheduling';
import { ChildCandidate, SITE_TIER_SCOPES, siteTierSnapshot } from './site-candidates';

/** How this hub takes part in federated scheduling: the tiers in the order tried, and its peer sites. */
export interface FederationSetup {
  readonly order: readonly FederationTier[];
  readonly peers: readonly string[];
}

/** CNET's order: this hub's own tree first, then its child sites, then its peers. */
export const DEFAULT_FEDERATION_ORDER: readonly FederationTier[] = ['local', 'children', 'peers'];

/** A federated decision: the scheduler's, where it placed (a node, or a site), and what it judged of other sites. */
export interface FederatedDecision {
  readonly decision: Decision;
  /** The site chosen, with how this site knows it (undefined: a node of this site, or unschedulable). */
  readonly site?: { readonly siteId: string; readonly relation: SiteRelation };
  /** Absent when no other site was a candidate (the decision is this hub's tree's alone, recorded as before). */
  readonly federation?: FederationBasisRecord;
}

/** What a federated decision is taken on: this hub's index, the child candidates and the peers, by tier. */
export interface FederationInputs {
  readonly local: SchedulingIndex;
  readonly children: readonly ChildCandidate[];
  readonly peers: readonly string[];
  readonly order: readonly FederationTier[];
}

/** The decision of one tier (undefined: the tier has no candidate, so it is not entered). */
function decideTier(
  tier: FederationTier,
  inputs: FederationInputs,
  request: PlacementRequest,
): Decision | undefined {
  if (tier === 'local') return decide(inputs.local, request);
  const sites = tier === 'children' ? inputs.children.length : inputs.peers.length;
  if (sites === 0) return undefined;
  const index = SchedulingIndex.fromSnapshot(siteTierSnapshot(tier, inputs.children, inputs.peers));
  return decide(index, { ...request, rootDomainId: SITE_TIER_SCOPES[tier] });
}

/** Counts summed per reason code. */
function addCounts(into: Record<string, number>, counts: Readonly<Record<string, number>>): void {
  for (const [code, n] of Object.entries(counts)) into[code] = (into[code] ?? 0) + n;
}

/**
 * Decides over tiers in order (CNET: local, children, peers): each tier is judged by the same scheduler and plugins
 * (sites as synthetic nodes, site-candidates.ts); the first tier that places wins, and the scopes of the tiers
 * before it that failed stay in the decision as rejections. Pure and deterministic for given inputs; the
 * federation basis records the inputs beyond the local tree (children with their summaries' revisions, peers).
 */
export function decideFederated(inputs: FederationInputs, request: PlacementRequest): FederatedDecision {
  const others = inputs.children.length + inputs.peers.length > 0;
  if (!others) return { decision: decide(inputs.local, request) };
  const federation: FederationBasisRecord = {
    order: [...inputs.order],
    children: inputs.children.map((c) => [c.siteId, c.revision]),
    peers: [...inputs.peers],
  };
  const rejections: Decision['rejections'] = [];
  const reasons: Record<string, number> = {};
  let sampleLimit: number | undefined;
  for (const tier of inputs.order) {
    const decision = decideTier(tier, inputs, request);
    if (!decision) continue;
    sampleLimit ??= decision.sampleLimit;
    if (decision.outcome === 'placed') {
      const merged = { ...decision, rejections: [...rejections, ...decision.rejections] };
      const siteId = siteOfPlace(decision.nodeId);
      if (siteId === undefined) return { decision: merged, federation };
      const relation: SiteRelation = tier === 'peers' ? 'peer' : 'child';
      return { decision: merged, site: { siteId, relation }, federation };
    }
    rejections.push(...decision.rejections);
    addCounts(reasons, decision.reasons);
  }
  const sampled = sampleLimit === undefined ? {} : { sampleLimit };
  return { decision: { outcome: 'unschedulable', hops: [], rejections, reasons, ...sampled }, federation };
}
