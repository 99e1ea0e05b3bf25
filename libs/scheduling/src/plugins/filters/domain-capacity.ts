import type { ResourceKey } from '../../resources';
import { firstShortfall, formatAmount, RESOURCE_NAMES } from '../../resources';
import type { Filter } from '../types';

/** No single usable node of the subtree has enough free CPU. */
export const DOMAIN_INSUFFICIENT_CPU = 'FILTER.DOMAIN_INSUFFICIENT_CPU';
/** No single usable node of the subtree has enough free memory. */
export const DOMAIN_INSUFFICIENT_MEMORY = 'FILTER.DOMAIN_INSUFFICIENT_MEMORY';
/** No single usable node of the subtree has enough free accelerators. */
export const DOMAIN_INSUFFICIENT_ACCELERATORS = 'FILTER.DOMAIN_INSUFFICIENT_ACCELERATORS';

/** The domain reason code per resource. */
export const DOMAIN_INSUFFICIENT_BY_RESOURCE: Readonly<Record<ResourceKey, string>> = {
  cpuMillis: DOMAIN_INSUFFICIENT_CPU,
  memoryBytes: DOMAIN_INSUFFICIENT_MEMORY,
  accelerators: DOMAIN_INSUFFICIENT_ACCELERATORS,
};

/**
 * Skips subtrees where, for some resource, even the node with the most of it free has too little (the max-free
 * aggregates). Passing does not guarantee a fit: one node may have the CPU and another the memory.
 */
export const domainCapacityFilter = {
  name: 'domain-capacity',
  reasons: [DOMAIN_INSUFFICIENT_CPU, DOMAIN_INSUFFICIENT_MEMORY, DOMAIN_INSUFFICIENT_ACCELERATORS],
  domain: (domain, request) => {
    const key = firstShortfall(request.resources, domain.maxFree);
    if (key === undefined) return undefined;
    const need = formatAmount(key, request.resources[key]);
    const largest = formatAmount(key, domain.maxFree[key]);
    return {
      reason: DOMAIN_INSUFFICIENT_BY_RESOURCE[key],
      detail: `${RESOURCE_NAMES[key]}: need ${need}, largest free on one node ${largest}`,
    };
  },
} satisfies Filter;
