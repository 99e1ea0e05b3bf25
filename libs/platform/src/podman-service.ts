import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

/** The flags this project runs podman with (no systemd here: runc and cgroupfs). */
export const PODMAN_FLAGS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];

/** A Docker Engine API served by `podman system service` on a unix socket this process started. */
export interface RunningEngine {
  /** The socket path (for DOCKER_HOST: `unix://<socketPath>`). */
  readonly socketPath: string;
  stop(): Promise<void>;
}

/** True when a `podman` binary is on the PATH. */
export function podmanInstalled(): boolean {
  return spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Resolves true when the engine on the socket answers `GET /_ping` within the timeout. */
export function pingEngine(socketPath: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}

/**
 * Starts `podman system service` on `<dir>/podman.sock` and waits until it answers; stop() ends it. Throws when podman
 * is missing or the service does not answer within the timeout.
 */
export async function startPodmanService(dir: string, timeoutMs = 20000): Promise<RunningEngine> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socketPath = join(dir, 'podman.sock');
  if (existsSync(socketPath)) rmSync(socketPath);
  const child: ChildProcess = spawn(
    'podman',
    [...PODMAN_FLAGS, 'system', 'service', '--time', '0', `unix://${socketPath}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  while (!(await pingEngine(socketPath, 500))) {
    if (child.exitCode !== null || Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(
        `podman system service did not answer on ${socketPath}: ${stderr.trim() || 'no output'}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    socketPath,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Where Docker's and rootful Podman's engine sockets are by default. */
const DEFAULT_ENGINE_SOCKETS = ['/var/run/docker.sock', '/run/podman/podman.sock'];

/** The engine socket to use: the configured one, else Docker's or rootful Podman's default when present. */
export function engineSocket(configured: string | undefined): string | undefined {
  return configured ?? DEFAULT_ENGINE_SOCKETS.find((path) => existsSync(path));
}

/**
 * An agent's container engine when none is configured: none to start when `configured` is set or a default socket
 * exists (the agent uses that); else podman's Docker API service on `<dir>/podman.sock` when podman is installed
 * (the caller stops it on exit); else none, said in one line.
 */
export async function startEngineIfMissing(
  configured: string | undefined,
  dir: string,
  log: (line: string) => void,
): Promise<RunningEngine | undefined> {
  if (engineSocket(configured)) return undefined;
  if (!podmanInstalled()) {
    log(
      'no container engine (DOCKER_HOST, containers.socket) and no podman: container workloads will be unschedulable here',
    );
    return undefined;
  }
  try {
    const engine = await startPodmanService(dir);
    log(`container engine: podman system service on ${engine.socketPath}`);
    return engine;
  } catch (error) {
    log(`podman did not start (${(error as Error).message}): container workloads will be unschedulable here`);
    return undefined;
  }
}
