import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { TcpProxy } from './tcp-proxy';

/**
 * Absolute path of the Node queue worker (GridCore's env contract; options in its header). Run it as a process
 * workload: command `process.execPath` (or `node`), args `[QUEUE_WORKER_JS]`.
 */
export const QUEUE_WORKER_JS = resolve(__dirname, 'queue-worker.js');

/**
 * The busybox queue worker, for a container workload on the test image: command `/bin/sh`, args `['-c', it]`. Its
 * comment lines are left out, so that it fits one argument of a workload or task spec (at most 4,096 characters).
 */
export function queueWorkerShellScript(): string {
  return readFileSync(resolve(__dirname, 'queue-worker.sh'), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n');
}

/** One result a queue worker pushed to its output queue. */
export interface WorkerResult {
  readonly item: string;
  readonly task: string;
  readonly node: string;
  readonly instance: string;
  readonly pid: number;
}

/** The results of an output list (LRANGE 0 -1), parsed. */
export function workerResults(list: readonly string[]): WorkerResult[] {
  return list.map((entry) => JSON.parse(entry) as WorkerResult);
}

/** The gateway of the engine's default network (podman's `podman`, Docker's `bridge`): the host, seen from a container. */
export async function engineGateway(socketPath: string): Promise<string> {
  for (const network of ['podman', 'bridge']) {
    const body = await new Promise<string | undefined>((done, fail) => {
      const req = request({ socketPath, path: `/networks/${network}`, timeout: 5000 }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => done(res.statusCode === 200 ? text : undefined));
      });
      req.on('error', fail);
      req.end();
    });
    const parsed = body ? (JSON.parse(body) as { IPAM?: { Config?: { Gateway?: string }[] } }) : undefined;
    const gateway = parsed?.IPAM?.Config?.find((c) => c.Gateway)?.Gateway;
    if (gateway) return gateway;
  }
  throw new Error(`the engine on ${socketPath} names no gateway for its default network`);
}

/**
 * Makes a loopback-only Redis reachable from containers on the engine's default network: a TCP proxy on the
 * network's gateway address (`host.containers.internal` inside podman containers) to `127.0.0.1:<redisPort>`.
 * The gateway's interface exists only once a container has joined the network: run one first.
 */
export async function redisForContainers(
  socketPath: string,
  redisPort: number,
  listenPort: number,
): Promise<{ gateway: string; url: string; close(): Promise<void> }> {
  const gateway = await engineGateway(socketPath);
  const proxy = new TcpProxy(listenPort, redisPort, gateway);
  await proxy.open();
  return {
    gateway,
    url: `redis://host.containers.internal:${listenPort}`,
    close: () => proxy.cut(),
  };
}
