import { Position, formatPosition } from '@hcn/contracts';
import type { ChangeSet } from './projection';

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PAYLOAD = 7900;
const LIST_LIMITS = [100, 50, 20, 5, 0];

/**
 * The NOTIFY payload of a committed batch: `{ projection, position, domains, nodes, workloads, namespaces, taskqueues, sites }` with at
 * most 100 ids per list. When the ids do not fit, the lists are cut further and `truncated: true` tells listeners to
 * refresh everything of those kinds; the payload is always valid JSON.
 */
export function changePayload(projection: string, position: Position, changes: ChangeSet): string {
  const lists = {
    domains: [...changes.domains],
    nodes: [...changes.nodes],
    workloads: [...changes.workloads],
    namespaces: [...changes.namespaces],
    taskqueues: [...changes.taskqueues],
    sites: [...changes.sites],
  };
  let payload = '';
  for (const limit of LIST_LIMITS) {
    const cut = Object.entries(lists).map(([key, ids]) => [key, ids.slice(0, limit)] as const);
    const truncated = cut.some(([key, ids]) => ids.length < lists[key as keyof typeof lists].length);
    payload = JSON.stringify({
      projection,
      position: formatPosition(position),
      ...Object.fromEntries(cut),
      ...(truncated ? { truncated: true } : {}),
    });
    if (Buffer.byteLength(payload) <= MAX_PAYLOAD) return payload;
  }
  return payload;
}
