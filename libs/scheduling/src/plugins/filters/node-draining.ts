import type { Filter } from '../types';

/** The node is draining: it takes no new work. */
export const NODE_DRAINING = 'FILTER.NODE_DRAINING';

/** Rejects draining nodes. */
export const nodeDrainingFilter = {
  name: 'node-draining',
  reasons: [NODE_DRAINING],
  node: (node) =>
    node.view.draining ? { reason: NODE_DRAINING, detail: `node ${node.id} is draining` } : undefined,
} satisfies Filter;
