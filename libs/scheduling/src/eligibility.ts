import { compileRequest } from './constraints';
import { filterNode } from './descent/evaluate';
import { countReason } from './descent/explain';
import type { PlacementRequest } from './model';
import { FILTERS } from './plugins/registry';
import type { NodeCheck } from './plugins/registry';
import type { SchedulingIndex } from './tree/scheduling-index';

/** Filters that judge whether a request fits a candidate now (free capacity, devices); eligibility ignores them. */
export const FIT_FILTERS: ReadonlySet<string> = new Set([
  'node-capacity',
  'node-devices',
  'domain-capacity',
  'domain-devices',
]);

/** The nodes that may ever run a request (all but the fit filters pass), and the count per reason of the others. */
export interface Eligibility {
  /** Ids of eligible nodes, sorted. */
  readonly eligible: readonly string[];
  readonly rejected: Readonly<Record<string, number>>;
}

/**
 * Which nodes a request is eligible on, whatever they hold now: every node filter of the registry but the fit
 * filters, in registry order (so a fan-out over "every eligible node" and the placements it makes agree on why a
 * node is left out). Pure.
 */
export function eligibleNodes(index: SchedulingIndex, request: PlacementRequest): Eligibility {
  const compiled = compileRequest(
    request,
    (id) => index.domainState(id),
    (id) => index.nodeState(id),
  );
  const checks: NodeCheck[] = FILTERS.filter((f) => !FIT_FILTERS.has(f.name) && !f.idle?.(compiled)).flatMap(
    (f) => (f.node ? [f.node] : []),
  );
  const eligible: string[] = [];
  const rejected: Record<string, number> = {};
  for (const node of index.allNodes()) {
    const rejection = filterNode(checks, node, compiled);
    if (rejection) countReason(rejected, rejection.reason);
    else eligible.push(node.id);
  }
  eligible.sort();
  return { eligible, rejected };
}
