import type { ResourceKey } from '../../resources';
import { firstShortfall, formatAmount, RESOURCE_NAMES } from '../../resources';
import type { Filter } from '../types';

/** The node has less free CPU than requested. */
export const INSUFFICIENT_CPU = 'FILTER.INSUFFICIENT_CPU';
/** The node has less free memory than requested. */
export const INSUFFICIENT_MEMORY = 'FILTER.INSUFFICIENT_MEMORY';
/** The node has fewer free accelerators than requested. */
export const INSUFFICIENT_ACCELERATORS = 'FILTER.INSUFFICIENT_ACCELERATORS';

/** The node reason code per resource. */
export const INSUFFICIENT_BY_RESOURCE: Readonly<Record<ResourceKey, string>> = {
  cpuMillis: INSUFFICIENT_CPU,
  memoryBytes: INSUFFICIENT_MEMORY,
  accelerators: INSUFFICIENT_ACCELERATORS,
};

/** Rejects nodes without enough free resources; names the first short resource, need vs free. */
export const nodeCapacityFilter = {
  name: 'node-capacity',
  reasons: [INSUFFICIENT_CPU, INSUFFICIENT_MEMORY, INSUFFICIENT_ACCELERATORS],
  node: (node, request) => {
    const key = firstShortfall(request.resources, node.free);
    if (key === undefined) return undefined;
    const need = formatAmount(key, request.resources[key]);
    return {
      reason: INSUFFICIENT_BY_RESOURCE[key],
      detail: `${RESOURCE_NAMES[key]}: need ${need}, free ${formatAmount(key, node.free[key])}`,
    };
  },
} satisfies Filter;
