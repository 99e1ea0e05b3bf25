import type { Filter } from '../types';

/** The workload's constraints blacklist this node. */
export const NODE_BLACKLISTED = 'FILTER.NODE_BLACKLISTED';

/** Rejects nodes on the workload's node blacklist. */
export const nodeBlacklistFilter = {
  name: 'node-blacklist',
  reasons: [NODE_BLACKLISTED],
  idle: (request) => request.blacklist === null,
  node: (node, request) =>
    request.blacklist?.has(node.id)
      ? { reason: NODE_BLACKLISTED, detail: `node ${node.id} is on the workload's blacklist` }
      : undefined,
} satisfies Filter;
