import type { Filter } from '../types';

/** The node's region (own or inherited) is not in the region affinity list. */
export const REGION_AFFINITY = 'FILTER.REGION_AFFINITY';
/** The node's region is in the region anti-affinity list. */
export const REGION_ANTI_AFFINITY = 'FILTER.REGION_ANTI_AFFINITY';

const show = (region: string | null) => region ?? '(none)';
const list = (set: ReadonlySet<string>) => [...set].join(', ');

/**
 * Region affinity and anti-affinity. A node's region is its domain's, or the nearest ancestor's that has one.
 * A child domain is rejected only when no domain of its subtree has an acceptable region.
 */
export const regionAffinityFilter = {
  name: 'region-affinity',
  reasons: [REGION_AFFINITY, REGION_ANTI_AFFINITY],
  idle: (request) => request.regionAffinity === null && request.regionAntiAffinity === null,
  node: (node, request) => {
    const region = node.home.region;
    const { regionAffinity: want, regionAntiAffinity: avoid } = request;
    if (want && (region === null || !want.has(region))) {
      return { reason: REGION_AFFINITY, detail: `region ${show(region)} is not one of [${list(want)}]` };
    }
    if (avoid && region !== null && avoid.has(region)) {
      return { reason: REGION_ANTI_AFFINITY, detail: `region ${region} is anti-affine` };
    }
    return undefined;
  },
  domain: (domain, request) => {
    const { regionAffinity: want, regionAntiAffinity: avoid } = request;
    if (!want && !avoid) return undefined;
    const regions = [...domain.subtreeRegions];
    if (want && !regions.some((r) => r !== null && want.has(r))) {
      const seen = regions.map(show).join(', ');
      return {
        reason: REGION_AFFINITY,
        detail: `regions in ${domain.id} [${seen}] are none of [${list(want)}]`,
      };
    }
    if (avoid && regions.every((r) => r !== null && avoid.has(r))) {
      return { reason: REGION_ANTI_AFFINITY, detail: `every region in ${domain.id} is anti-affine` };
    }
    return undefined;
  },
} satisfies Filter;
