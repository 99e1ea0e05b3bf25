import { labelMatches, someNodeCanMatch } from '../../labels';
import type { Filter } from '../types';

/** A label constraint does not hold on the node (or on any usable node of a subtree). */
export const LABEL_MISMATCH = 'FILTER.LABEL_MISMATCH';
/** A label constraint is malformed (missing value, bad pattern): no node can satisfy it. */
export const LABEL_CONSTRAINT_INVALID = 'FILTER.LABEL_CONSTRAINT_INVALID';

/**
 * Rejects nodes whose labels fail a constraint, naming the first failing constraint and the node's value; skips
 * a subtree when, for some constraint, none of its usable nodes carries a matching label (per-subtree counts).
 */
export const nodeLabelsFilter = {
  name: 'node-labels',
  reasons: [LABEL_MISMATCH, LABEL_CONSTRAINT_INVALID],
  idle: (request) => request.labels.length === 0,
  node: (node, request) => {
    for (const c of request.labels) {
      if (c.invalid !== undefined) return { reason: LABEL_CONSTRAINT_INVALID, detail: c.invalid };
      const value = node.view.labels[c.source.key];
      if (labelMatches(c, value)) continue;
      const has = value === undefined ? `no label ${c.source.key}` : `${c.source.key}=${value}`;
      return { reason: LABEL_MISMATCH, detail: `label ${c.text} not met: node has ${has}` };
    }
    return undefined;
  },
  domain: (domain, request) => {
    for (const c of request.labels) {
      if (c.invalid !== undefined) return { reason: LABEL_CONSTRAINT_INVALID, detail: c.invalid };
      if (someNodeCanMatch(c, domain.labelCounts.get(c.source.key), domain.counts.usable)) continue;
      return { reason: LABEL_MISMATCH, detail: `label ${c.text} not met by any usable node in ${domain.id}` };
    }
    return undefined;
  },
} satisfies Filter;
