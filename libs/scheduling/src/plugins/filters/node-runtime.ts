import type { Filter } from '../types';

/** The node's agent does not offer the runtime the workload needs (no container engine, for containers). */
export const RUNTIME_UNAVAILABLE = 'FILTER.RUNTIME_UNAVAILABLE';

/** Rejects nodes whose agent cannot run the workload's runtime; idle for processes, which every agent runs. */
export const nodeRuntimeFilter = {
  name: 'node-runtime',
  reasons: [RUNTIME_UNAVAILABLE],
  idle: (request) => request.runtime === 'process',
  node: (node, request) => {
    const offered = node.view.runtimes ?? ['process'];
    if (offered.includes(request.runtime)) return undefined;
    return {
      reason: RUNTIME_UNAVAILABLE,
      detail: `node ${node.id} offers ${offered.join(', ')}, not ${request.runtime}`,
    };
  },
} satisfies Filter;
