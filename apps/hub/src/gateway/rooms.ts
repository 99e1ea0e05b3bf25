import { domainIdSchema, namespaceSchema } from '@hcn/contracts';
import { z } from 'zod';
import { Principal, inNamespace } from '../auth/principal';

/**
 * Rooms of the change feed:
 * - `nodes`: ids of nodes whose node_state row changed (any token)
 * - `domains`: ids of changed domain summaries (any token); `domain:<id>`: one domain
 * - `namespace:<ns>`: workloads, quota usage and task queues of one namespace (tokens of that namespace)
 * - `namespaces:*`: the same for every namespace (tokens scoped to `*` only)
 * - `workload:<id>`: one workload (tokens that may read it; checked against its stream on join)
 * - `sites`: ids of federation sites whose state or last summary changed (any token, as `GET /v1/federation/sites`)
 */
export type Room =
  | { kind: 'nodes' }
  | { kind: 'domains' }
  | { kind: 'domain'; domainId: string }
  | { kind: 'namespace'; namespace: string }
  | { kind: 'all-namespaces' }
  | { kind: 'workload'; workloadId: string }
  | { kind: 'sites' };

const uuid = z.string().uuid();

/** Parses a room name; undefined for names that are no room. */
export function parseRoom(name: unknown): Room | undefined {
  if (typeof name !== 'string' || name.length > 100) return undefined;
  if (name === 'nodes') return { kind: 'nodes' };
  if (name === 'domains') return { kind: 'domains' };
  if (name === 'sites') return { kind: 'sites' };
  if (name === 'namespaces:*') return { kind: 'all-namespaces' };
  const [prefix, value, ...rest] = name.split(':');
  if (rest.length > 0 || value === undefined) return undefined;
  if (prefix === 'domain' && domainIdSchema.safeParse(value).success)
    return { kind: 'domain', domainId: value };
  if (prefix === 'namespace' && namespaceSchema.safeParse(value).success)
    return { kind: 'namespace', namespace: value };
  if (prefix === 'workload' && uuid.safeParse(value).success) return { kind: 'workload', workloadId: value };
  return undefined;
}

/** The name of a room. */
export function roomName(room: Room): string {
  switch (room.kind) {
    case 'nodes':
    case 'domains':
    case 'sites':
      return room.kind;
    case 'domain':
      return `domain:${room.domainId}`;
    case 'namespace':
      return `namespace:${room.namespace}`;
    case 'all-namespaces':
      return 'namespaces:*';
    case 'workload':
      return `workload:${room.workloadId}`;
  }
}

/**
 * Whether a principal may join a room, before any lookup: nodes and domains are open to every token (as
 * `GET /v1/nodes` is); namespace rooms follow the token's namespaces; workload rooms need a look at the workload.
 * Returns an error code, `check-workload`, or null when allowed.
 */
export function roomAccess(principal: Principal, room: Room): string | 'check-workload' | null {
  switch (room.kind) {
    case 'nodes':
    case 'domains':
    case 'domain':
    case 'sites':
      return null;
    case 'namespace':
      return inNamespace(principal, room.namespace) ? null : 'AUTH.NAMESPACE_FORBIDDEN';
    case 'all-namespaces':
      return principal.namespaces.includes('*') ? null : 'AUTH.NAMESPACE_FORBIDDEN';
    case 'workload':
      return 'check-workload';
  }
}

/** A change message as clients receive it (event `change`): what changed, as ids; `refresh` = refetch all. */
export interface ChangeMessage {
  room: string;
  position?: string;
  nodes?: string[];
  domains?: string[];
  workloads?: string[];
  namespaces?: string[];
  taskqueues?: string[];
  sites?: string[];
  refresh?: boolean;
}

/** The projector's NOTIFY payload (apps/projector/src/change-payload.ts). */
export const changeNotificationSchema = z.object({
  projection: z.string(),
  position: z.string().optional(),
  domains: z.array(z.string()).default([]),
  nodes: z.array(z.string()).default([]),
  workloads: z.array(z.string()).default([]),
  namespaces: z.array(z.string()).default([]),
  taskqueues: z.array(z.string()).default([]),
  sites: z.array(z.string()).default([]),
  truncated: z.boolean().optional(),
});

/** A parsed NOTIFY payload. */
export type ChangeNotification = z.output<typeof changeNotificationSchema>;

/**
 * Splits one notification into messages per room. `namespaceOf` maps workload and task queue ids to their
 * namespaces (ids it does not know reach only their own workload room and `namespaces:*`). `openRooms` lists the rooms that have
 * members (for `refresh` fan-out when the projector cut the id lists).
 */
export function routeChange(
  change: ChangeNotification,
  namespaceOf: ReadonlyMap<string, string>,
  openRooms: readonly string[],
): ChangeMessage[] {
  const out: ChangeMessage[] = [];
  const position = change.position;
  if (change.truncated) {
    return openRooms.map((room) => ({ room, position, refresh: true }));
  }
  if (change.nodes.length > 0) out.push({ room: 'nodes', position, nodes: change.nodes });
  if (change.sites.length > 0) out.push({ room: 'sites', position, sites: change.sites });
  if (change.domains.length > 0) {
    out.push({ room: 'domains', position, domains: change.domains });
    for (const d of change.domains) out.push({ room: `domain:${d}`, position, domains: [d] });
  }
  const byNamespace = new Map<string, Lists>();
  const slot = (ns: string) => {
    const s = byNamespace.get(ns) ?? { workloads: [], namespaces: [], taskqueues: [] };
    byNamespace.set(ns, s);
    return s;
  };
  for (const id of change.workloads) {
    const ns = namespaceOf.get(id);
    if (ns) slot(ns).workloads.push(id);
    out.push({ room: `workload:${id}`, position, workloads: [id] });
  }
  for (const ns of change.namespaces) slot(ns).namespaces.push(ns);
  for (const id of change.taskqueues) {
    const ns = namespaceOf.get(id);
    if (ns) slot(ns).taskqueues.push(id);
  }
  for (const [ns, s] of byNamespace) {
    out.push({ room: `namespace:${ns}`, position, ...nonEmpty(s) });
  }
  if (change.workloads.length > 0 || change.namespaces.length > 0 || change.taskqueues.length > 0) {
    out.push({
      room: 'namespaces:*',
      position,
      ...nonEmpty({
        workloads: change.workloads,
        namespaces: change.namespaces,
        taskqueues: change.taskqueues,
      }),
    });
  }
  return out;
}

/** The ids a namespace room's message names. */
interface Lists {
  workloads: string[];
  namespaces: string[];
  taskqueues: string[];
}

function nonEmpty(lists: Lists): Partial<ChangeMessage> {
  return {
    ...(lists.workloads.length > 0 ? { workloads: lists.workloads } : {}),
    ...(lists.namespaces.length > 0 ? { namespaces: lists.namespaces } : {}),
    ...(lists.taskqueues.length > 0 ? { taskqueues: lists.taskqueues } : {}),
  };
}
