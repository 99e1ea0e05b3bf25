import type { Filter } from '../types';

/** The workload names the nodes it may run on, and this is not one of them. */
export const NODE_NOT_ALLOWED = 'FILTER.NODE_NOT_ALLOWED';

/** Rejects nodes outside the workload's node list (`constraints.nodes`), and domains that hold none of them. */
export const nodeAllowlistFilter = {
  name: 'node-allowlist',
  reasons: [NODE_NOT_ALLOWED],
  idle: (request) => request.allowlist === null,
  node: (node, request) =>
    request.allowlist && !request.allowlist.has(node.id)
      ? { reason: NODE_NOT_ALLOWED, detail: `node ${node.id} is not among the workload's nodes` }
      : undefined,
  domain: (domain, request) =>
    request.allowedDomains && !request.allowedDomains.has(domain.id)
      ? { reason: NODE_NOT_ALLOWED, detail: `no node of the workload's list is in ${domain.chain.join('/')}` }
      : undefined,
} satisfies Filter;
