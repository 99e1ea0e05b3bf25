import type { CompiledRequest } from '../../constraints';
import type { Candidate, DomainState } from '../../tree/states';
import { meanFreeFraction } from './fractions';
import type { Scorer } from '../types';

/** Tree distance beyond which a preferred domain no longer counts as close. */
export const LOCALITY_MAX_DISTANCE = 8;
const LEVELS = LOCALITY_MAX_DISTANCE * 2 + 1;

/** Edges between two domains through their lowest common ancestor; 0 when one contains the other. */
export function treeDistance(a: DomainState, b: DomainState): number {
  if (a.lineage.has(b.id) || b.lineage.has(a.id)) return 0;
  let common = 0;
  while (common < a.chain.length && common < b.chain.length && a.chain[common] === b.chain[common]) common++;
  return a.chain.length - common + (b.chain.length - common);
}

function regionPreferred(c: Candidate, preferred: ReadonlySet<string>): boolean {
  if (preferred.size === 0) return false;
  if (c.kind === 'node') return c.home.region !== null && preferred.has(c.home.region);
  for (const region of c.subtreeRegions) if (region !== null && preferred.has(region)) return true;
  return false;
}

/** Closeness level in [0, LEVELS]: domain closeness first, then a preferred region. */
export function localityLevel(c: Candidate, request: CompiledRequest): number {
  let domainLevel = 0;
  for (const p of request.preferDomains) {
    domainLevel = Math.max(domainLevel, LOCALITY_MAX_DISTANCE - treeDistance(c.home, p));
  }
  return domainLevel * 2 + (regionPreferred(c, request.preferRegions) ? 1 : 0);
}

/**
 * Locality: candidates in, above or near a preferred domain (tree distance), then those in a preferred region,
 * score highest; ties in closeness are ordered by least-loaded (a lexicographic blend, still in [0, 100]).
 */
export const localityScorer = {
  name: 'locality' as const,
  score: (candidates, { request }, out) => {
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i];
      const load = 100 * meanFreeFraction(c.capacity, c.free);
      out[i] = (100 * (localityLevel(c, request) * 101 + load)) / (LEVELS * 101 + 100);
    }
  },
} satisfies Scorer;
