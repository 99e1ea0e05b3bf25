import type { Filter } from '../types';

/** The request excludes this node for this decision (e.g. the node just lost). */
export const NODE_EXCLUDED = 'FILTER.NODE_EXCLUDED';

/** Rejects nodes listed in the request's `excludeNodes`. */
export const nodeExcludedFilter = {
  name: 'node-excluded',
  reasons: [NODE_EXCLUDED],
  idle: (request) => request.excluded === null,
  node: (node, request) =>
    request.excluded?.has(node.id)
      ? { reason: NODE_EXCLUDED, detail: `node ${node.id} is excluded for this decision` }
      : undefined,
} satisfies Filter;
