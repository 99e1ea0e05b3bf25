import { portVariable, type PublishedPort, type ServicePlacement, type ServicePort } from '@hcn/contracts';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** Tries per port before giving up on finding a free one nobody else was given. */
const PICK_TRIES = 20;

/** A port the kernel calls free now (bound to 0 on every interface, then released). */
function freePort(protocol: 'tcp' | 'udp'): Promise<number> {
  return new Promise((resolve, reject) => {
    if (protocol === 'udp') {
      const socket = createSocket('udp4');
      socket.on('error', reject);
      socket.bind(0, () => {
        const { port } = socket.address();
        socket.close(() => resolve(port));
      });
      return;
    }
    const server = createServer();
    server.on('error', reject);
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Host ports for a process service's named ports: a fixed `hostPort` as given, 0 as a port free now that this agent
 * has not handed to another allocation (`held`, kept by the caller while they run). The process is told them in its
 * environment and listens on them itself (between the pick and its listen another program could take one: the
 * allocation then fails or never gets ready, and is replaced by its restart policy).
 */
export async function pickHostPorts(
  ports: readonly ServicePort[],
  held: ReadonlySet<number>,
): Promise<PublishedPort[]> {
  const picked: PublishedPort[] = [];
  for (const port of ports) {
    let hostPort = port.hostPort;
    for (let tries = 0; hostPort === 0; tries++) {
      if (tries >= PICK_TRIES) throw new Error(`no free ${port.protocol} port for ${port.name}`);
      const candidate = await freePort(port.protocol);
      if (!held.has(candidate) && !picked.some((p) => p.hostPort === candidate)) hostPort = candidate;
    }
    picked.push({ name: port.name, containerPort: hostPort, hostPort, protocol: port.protocol });
  }
  return picked;
}

/** The variables that tell a service its ports: `HCN_PORT_<NAME>` each, and `PORT` when it has exactly one. */
export function portEnvironment(ports: readonly { name: string; port: number }[]): Record<string, string> {
  const env = Object.fromEntries(ports.map((p) => [portVariable(p.name), String(p.port)]));
  return ports.length === 1 ? { ...env, PORT: String(ports[0].port) } : env;
}

/** A container service's variables: its named ports as the container sees them (its containerPorts). */
export function containerPortEnvironment(service: ServicePlacement): Record<string, string> {
  return portEnvironment(
    service.ports.flatMap((p) =>
      p.containerPort === undefined ? [] : [{ name: p.name, port: p.containerPort }],
    ),
  );
}

/** The ports an engine published for a container, named after the service's ports (matched by port and protocol). */
export function namePublished(
  published: readonly PublishedPort[],
  service: ServicePlacement,
): PublishedPort[] {
  return published.map((p) => {
    const named = service.ports.find((s) => s.containerPort === p.containerPort && s.protocol === p.protocol);
    return named ? { ...p, name: named.name } : p;
  });
}

/** The host port a probe's port (a name, or a declared port number) reaches, among the allocation's published ports. */
export function hostPortOf(
  port: string | number,
  published: readonly PublishedPort[],
  runtime: 'process' | 'container',
): number | undefined {
  if (typeof port === 'string') return published.find((p) => p.name === port)?.hostPort;
  if (runtime === 'process') return port;
  return published.find((p) => p.containerPort === port && p.protocol === 'tcp')?.hostPort;
}
