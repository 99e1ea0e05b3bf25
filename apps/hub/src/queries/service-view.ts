import { servicePortsOf, z } from '@hcn/contracts';
import { WorkloadState, isService, readyReplicas } from '@hcn/domain';
import type { ClusterView } from '../scheduling/cluster-view';

/** Where a node's published ports are reached (its registered address, else its hostname; undefined: unknown). */
export type NodeAddresses = (nodeId: string) => string | undefined;

/** Node addresses as the hub's cluster view knows them (the registrations it folded). */
export function nodeAddresses(view: Pick<ClusterView, 'node'>): NodeAddresses {
  return (nodeId) => {
    const registration = view.node(nodeId)?.registration;
    return registration ? (registration.address ?? registration.hostname) : undefined;
  };
}

/** A ready replica of a service: where it runs and its ports by name. */
const readyReplicaViewSchema = z
  .object({
    instance: z.number().int(),
    allocationId: z.string(),
    nodeId: z.string(),
    host: z
      .string()
      .nullable()
      .describe("the node's address (or hostname); null when the hub does not know the node (any more)"),
    generation: z.number().int(),
    ports: z.record(z.string(), z.number().int()).describe('host port of each named port'),
  })
  .meta({ id: 'ReadyReplica' });

/** A ready replica of a service (see readyReplicaViewSchema). */
export type ReadyReplicaView = z.output<typeof readyReplicaViewSchema>;

/** What a service answers besides its workload: replicas ready, and where clients reach them. */
export const serviceViewSchema = z
  .object({
    runtime: z.string(),
    replicas: z.number().int(),
    readyReplicas: z.number().int(),
    endpoints: z
      .record(z.string(), z.array(z.string()))
      .describe('`host:port` of every ready replica, per named port (in instance order)'),
    ready: z.array(readyReplicaViewSchema),
  })
  .meta({ id: 'ServiceStatus' });

/** What a service answers besides its workload (see serviceViewSchema). */
export type ServiceView = z.output<typeof serviceViewSchema>;

/** `host:port`, an IPv6 address in brackets. */
function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A service's (or model's) ready replicas and endpoints (undefined for other workloads). */
export function serviceView(state: WorkloadState, addressOf: NodeAddresses): ServiceView | undefined {
  const spec = state.spec;
  if (!spec || !isService(state)) return undefined;
  const endpoints: Record<string, string[]> = Object.fromEntries(
    servicePortsOf(spec).flatMap((p) => (p.name ? [[p.name, []]] : [])),
  );
  const ready = readyReplicas(state).map((replica): ReadyReplicaView => {
    const host = addressOf(replica.nodeId) ?? null;
    const ports: Record<string, number> = {};
    for (const port of replica.ports) {
      if (!port.name) continue;
      ports[port.name] = port.hostPort;
      if (host) (endpoints[port.name] ??= []).push(hostPort(host, port.hostPort));
    }
    return { ...replica, host, ports };
  });
  return {
    runtime: spec.runtime ?? 'process',
    replicas: spec.replicas,
    readyReplicas: ready.length,
    endpoints,
    ready,
  };
}
