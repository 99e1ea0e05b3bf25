import type { Filter } from '../types';

/** No node of the domain's subtree is online and not draining. */
export const DOMAIN_NO_USABLE_NODE = 'FILTER.DOMAIN_NO_USABLE_NODE';

/** Skips subtrees without a single online, non-draining node. */
export const domainUsableFilter = {
  name: 'domain-usable',
  reasons: [DOMAIN_NO_USABLE_NODE],
  domain: (domain) => {
    const { total, usable, offline, draining } = domain.counts;
    if (usable > 0) return undefined;
    const detail = `no online, non-draining node in ${domain.id} (${total} nodes: ${offline} offline, ${draining} draining)`;
    return { reason: DOMAIN_NO_USABLE_NODE, detail };
  },
} satisfies Filter;
