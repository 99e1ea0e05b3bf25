import type { CompiledRequest } from '../../constraints';
import type { DomainState } from '../../tree/states';
import type { Filter, Rejection } from '../types';

/** Neither the node's domain nor any ancestor is in the domain affinity list. */
export const DOMAIN_AFFINITY = 'FILTER.DOMAIN_AFFINITY';
/** The node's domain or an ancestor is in the domain anti-affinity list. */
export const DOMAIN_ANTI_AFFINITY = 'FILTER.DOMAIN_ANTI_AFFINITY';

function firstListed(chain: readonly string[], listed: ReadonlySet<string>): string | undefined {
  for (const id of chain) if (listed.has(id)) return id;
  return undefined;
}

function antiAffinity(home: DomainState, request: CompiledRequest): Rejection | undefined {
  const hit = request.domainAntiAffinity && firstListed(home.chain, request.domainAntiAffinity);
  if (!hit) return undefined;
  return {
    reason: DOMAIN_ANTI_AFFINITY,
    detail: `${home.chain.join('/')} is under anti-affine domain ${hit}`,
  };
}

function affinityMiss(home: DomainState, affinity: ReadonlySet<string>): Rejection {
  const listed = [...affinity].join(', ');
  return { reason: DOMAIN_AFFINITY, detail: `${home.chain.join('/')} is not in or under any of [${listed}]` };
}

/**
 * Domain affinity and anti-affinity over the ancestor chain. A child domain passes affinity when it is in or
 * under a listed domain, or when a listed domain lies below it (some descendant can still satisfy it).
 */
export const domainAffinityFilter = {
  name: 'domain-affinity',
  reasons: [DOMAIN_AFFINITY, DOMAIN_ANTI_AFFINITY],
  idle: (request) => request.domainAffinity === null && request.domainAntiAffinity === null,
  node: (node, request) => {
    const affinity = request.domainAffinity;
    if (affinity && !firstListed(node.home.chain, affinity)) return affinityMiss(node.home, affinity);
    return antiAffinity(node.home, request);
  },
  domain: (domain, request) => {
    const affinity = request.domainAffinity;
    if (affinity && !firstListed(domain.chain, affinity)) {
      const below = request.domainAffinityStates.some((a) => a.lineage.has(domain.id));
      if (!below) return affinityMiss(domain, affinity);
    }
    return antiAffinity(domain, request);
  },
} satisfies Filter;
