import type { Filter } from '../types';

/** The node is offline (no heartbeat within its TTL). */
export const NODE_OFFLINE = 'FILTER.NODE_OFFLINE';

/** Rejects offline nodes. */
export const nodeOnlineFilter = {
  name: 'node-online',
  reasons: [NODE_OFFLINE],
  node: (node) =>
    node.view.online ? undefined : { reason: NODE_OFFLINE, detail: `node ${node.id} is offline` },
} satisfies Filter;
