import Modem from 'docker-modem';
import type Docker from 'dockerode'; // the API's shapes only (@types/dockerode); nothing of dockerode is loaded
import { PassThrough } from 'node:stream';
import type { PublishedPort } from '@hcn/contracts';
import {
  ContainerEngine,
  ContainerRequest,
  ContainerStats,
  ContainerStatus,
  EngineError,
  EngineErrorCode,
  OutputSink,
} from './engine';

/** Status codes of the Docker Engine API that mean success, by operation (anything else is an error). */
const OK = {
  ping: { 200: true },
  read: { 200: true },
  created: { 200: true, 201: true },
  done: { 200: true, 201: true, 204: true, 304: true },
} satisfies Record<string, Modem.StatusCodes>;

/**
 * The Docker Engine API (Docker, or Podman's compatible service) over a unix socket, through docker-modem (the
 * transport dockerode is built on; dockerode itself loads an SSH and a gRPC client at start that the agent never
 * uses, ≈ 9 MiB of its memory).
 */
export class DockerEngine implements ContainerEngine {
  private readonly modem: Modem;
  /** Which update route the engine answered (Docker's, or Podman's libpod one); undefined until the first. */
  private updateRoute: 'docker' | 'libpod' | undefined;

  constructor(readonly socketPath: string) {
    this.modem = new Modem({ socketPath });
  }

  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new EngineError('ENGINE.UNAVAILABLE', 'no answer to ping in 3 s')),
        3000,
      );
    });
    try {
      await Promise.race([
        this.dial('ENGINE.UNAVAILABLE', { path: '/_ping', method: 'GET', statusCodes: OK.ping }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async hasImage(image: string): Promise<boolean> {
    try {
      await this.dial('ENGINE.UNAVAILABLE', {
        path: `/images/${encodeURIComponent(image)}/json`,
        method: 'GET',
        statusCodes: OK.read,
      });
      return true;
    } catch (error) {
      if (error instanceof EngineError && error.status === 404) return false;
      throw error;
    }
  }

  async pull(image: string): Promise<void> {
    const stream = await this.dial<NodeJS.ReadableStream>('IMAGE.PULL_FAILED', {
      path: '/images/create?',
      method: 'POST',
      options: { _query: imageReference(image), _body: {} },
      isStream: true,
      statusCodes: OK.read,
    });
    await new Promise<void>((resolve, reject) =>
      this.modem.followProgress(stream, (error: Error | null, events: { error?: string }[]) => {
        const failed = error?.message ?? events.find((e) => e.error)?.error;
        if (failed) reject(translate(new Error(failed), 'IMAGE.PULL_FAILED'));
        else resolve();
      }),
    );
  }

  async create(request: ContainerRequest): Promise<string> {
    const created = await this.dial<{ Id: string }>('CONTAINER.CREATE_FAILED', {
      path: '/containers/create?',
      method: 'POST',
      options: { _query: { name: request.name }, _body: createOptions(request) },
      statusCodes: OK.created,
    });
    return created.Id;
  }

  async start(id: string): Promise<void> {
    await this.dial('CONTAINER.START_FAILED', { ...this.on(id, 'start', 'POST'), statusCodes: OK.done });
  }

  async limitCpu(id: string, cpuMillis: number): Promise<void> {
    if (this.updateRoute !== 'libpod') {
      try {
        await this.dial('CONTAINER.UPDATE_FAILED', {
          ...this.on(id, 'update', 'POST', {}, { NanoCpus: cpuMillis * 1_000_000 }),
          statusCodes: OK.done,
        });
        this.updateRoute = 'docker';
        return;
      } catch (error) {
        // Podman's compatible API has no update route (404 on the route, not on the container): its own API has
        if (this.updateRoute === 'docker' || !(error instanceof EngineError) || error.status !== 404)
          throw error;
      }
    }
    await this.dial('CONTAINER.UPDATE_FAILED', {
      path: `/v4.0.0/libpod/containers/${encodeURIComponent(id)}/update?`,
      method: 'POST',
      options: { _query: {}, _body: { cpu: { quota: cpuMillis * 100, period: 100_000 } } },
      statusCodes: OK.done,
    });
    this.updateRoute = 'libpod';
  }

  async inspect(id: string): Promise<ContainerStatus> {
    const info = await this.dial<Docker.ContainerInspectInfo>('CONTAINER.NOT_FOUND', {
      path: `/containers/${encodeURIComponent(id)}/json`,
      method: 'GET',
      statusCodes: OK.read,
    });
    return statusOf(info);
  }

  async kill(id: string, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    try {
      await this.dial('ENGINE.UNAVAILABLE', {
        ...this.on(id, 'kill', 'POST', { signal }),
        statusCodes: OK.done,
      });
    } catch (error) {
      const status = error instanceof EngineError ? error.status : undefined;
      if (status === 404 || status === 409) return; // gone or not running: nothing to signal
      throw error;
    }
  }

  async wait(id: string): Promise<number> {
    const result = await this.dial<{ StatusCode?: number }>('ENGINE.UNAVAILABLE', {
      ...this.on(id, 'wait', 'POST'),
      statusCodes: OK.read,
    });
    return Number(result.StatusCode ?? -1);
  }

  async follow(id: string, sink: OutputSink): Promise<void> {
    const stream = await this.dial<NodeJS.ReadableStream>('ENGINE.UNAVAILABLE', {
      ...this.on(id, 'logs', 'GET', { follow: true, stdout: true, stderr: true }),
      isStream: true,
      statusCodes: OK.read,
    });
    const out = new PassThrough();
    const err = new PassThrough();
    out.on('data', (chunk: Buffer) => sink.stdout(chunk));
    err.on('data', (chunk: Buffer) => sink.stderr(chunk));
    this.modem.demuxStream(stream, out, err);
    await new Promise<void>((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
  }

  async stats(id: string): Promise<ContainerStats> {
    const raw = await this.dial<Partial<Docker.ContainerStats>>('ENGINE.UNAVAILABLE', {
      ...this.on(id, 'stats', 'GET', { stream: false }),
      statusCodes: OK.read,
    });
    return {
      cpuSeconds: (raw.cpu_stats?.cpu_usage?.total_usage ?? 0) / 1e9,
      memoryBytes: raw.memory_stats?.usage ?? 0,
    };
  }

  async remove(id: string): Promise<void> {
    try {
      await this.dial('ENGINE.UNAVAILABLE', {
        path: `/containers/${encodeURIComponent(id)}?`,
        method: 'DELETE',
        options: { force: true, v: true },
        statusCodes: OK.done,
      });
    } catch (error) {
      if (!(error instanceof EngineError) || error.status !== 404) throw error;
    }
  }

  async list(labels: readonly string[]): Promise<ContainerStatus[]> {
    const found = await this.dial<{ Id: string }[]>('ENGINE.UNAVAILABLE', {
      path: '/containers/json?',
      method: 'GET',
      options: { all: true, filters: { label: [...labels] } },
      statusCodes: OK.read,
    });
    const statuses = await Promise.all(found.map((c) => this.inspect(c.Id).catch(() => undefined)));
    return statuses.filter((s): s is ContainerStatus => s !== undefined);
  }

  async exec(id: string, command: readonly string[], timeoutMs: number): Promise<number | null> {
    const deadline = Date.now() + timeoutMs;
    const created = await this.dial<{ Id: string }>('CONTAINER.NOT_FOUND', {
      ...this.on(id, 'exec', 'POST', {}, { Cmd: [...command], AttachStdout: false, AttachStderr: false }),
      statusCodes: OK.created,
    });
    const exec = `/exec/${encodeURIComponent(created.Id)}`;
    await this.dial('ENGINE.UNAVAILABLE', {
      path: `${exec}/start?`,
      method: 'POST',
      options: { _query: {}, _body: { Detach: true, Tty: false } },
      statusCodes: OK.done,
    });
    for (let wait = 20; ; wait = Math.min(wait * 2, 200)) {
      const info = await this.dial<{ Running?: boolean; ExitCode?: number | null }>('ENGINE.UNAVAILABLE', {
        path: `${exec}/json`,
        method: 'GET',
        statusCodes: OK.read,
      });
      if (!info.Running && typeof info.ExitCode === 'number') return info.ExitCode;
      if (Date.now() + wait > deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** A request on one container: its query goes in the URL, its body (POST only) as JSON. */
  private on(
    id: string,
    action: string,
    method: 'GET' | 'POST',
    query: Record<string, unknown> = {},
    body: Record<string, unknown> = {},
  ): Modem.DialOptions {
    return {
      path: `/containers/${encodeURIComponent(id)}/${action}?`,
      method,
      options: method === 'GET' ? query : { _query: query, _body: body },
    };
  }

  private dial<T = unknown>(code: EngineErrorCode, options: Modem.DialOptions): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.modem.dial(options, (error, result) =>
        error ? reject(translate(error, code)) : resolve(result as T),
      ),
    );
  }
}

/** `name:tag` (or `name@digest`) as the pull route's `fromImage` and `tag`. */
export function imageReference(image: string): { fromImage: string; tag?: string } {
  if (image.includes('@')) return { fromImage: image };
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  if (colon > slash) return { fromImage: image.slice(0, colon), tag: image.slice(colon + 1) };
  return { fromImage: image, tag: 'latest' };
}

/** The engine's create request for an allocation: limits, labels, ports, mounts and devices. */
export function createOptions(request: ContainerRequest): Docker.ContainerCreateOptions {
  const portKey = (p: { containerPort: number; protocol: string }): string =>
    `${p.containerPort}/${p.protocol}`;
  return {
    name: request.name,
    Image: request.image,
    ...(request.entrypoint ? { Entrypoint: [...request.entrypoint] } : {}),
    ...(request.cmd ? { Cmd: [...request.cmd] } : {}),
    Env: Object.entries(request.env).map(([k, v]) => `${k}=${v}`),
    Labels: { ...request.labels },
    ...(request.workingDir ? { WorkingDir: request.workingDir } : {}),
    ...(request.user ? { User: request.user } : {}),
    ExposedPorts: Object.fromEntries(request.ports.map((p) => [portKey(p), {}])),
    HostConfig: {
      PortBindings: Object.fromEntries(
        request.ports.map((p) => [
          portKey(p),
          [{ HostIp: '', HostPort: p.hostPort ? String(p.hostPort) : '' }],
        ]),
      ),
      Binds: [...request.binds, ...request.volumes].map(
        (m) => `${m.source}:${m.target}${m.readOnly ? ':ro' : ''}`,
      ),
      Devices: request.devices.map((d) => ({
        PathOnHost: d.hostPath,
        PathInContainer: d.containerPath,
        CgroupPermissions: 'rwm',
      })),
      ...(request.memoryBytes > 0 ? { Memory: request.memoryBytes, MemorySwap: request.memoryBytes } : {}),
      ...(request.cpuMillis > 0 ? { NanoCpus: request.cpuMillis * 1_000_000 } : {}),
      PidsLimit: request.pidsLimit,
      Ulimits: request.ulimits.map((u) => ({ Name: u.name, Soft: u.soft, Hard: u.hard })),
      ...(request.cgroupParent ? { CgroupParent: request.cgroupParent } : {}),
    },
  };
}

function statusOf(info: Docker.ContainerInspectInfo): ContainerStatus {
  const state = info.State;
  return {
    id: info.Id,
    name: info.Name.replace(/^\//, ''),
    labels: info.Config?.Labels ?? {},
    running: state.Running,
    live: state.Running || state.Status === 'created' || state.Status === 'configured',
    pid: state.Pid,
    exitCode: state.ExitCode,
    oomKilled: state.OOMKilled,
    error: state.Error ?? '',
    startedAt: state.StartedAt,
    finishedAt: state.FinishedAt,
    ports: publishedPorts(info.NetworkSettings?.Ports),
  };
}

function publishedPorts(
  ports: Docker.ContainerInspectInfo['NetworkSettings']['Ports'] | undefined,
): PublishedPort[] {
  const out: PublishedPort[] = [];
  for (const [key, bindings] of Object.entries(ports ?? {})) {
    const [port, protocol] = key.split('/');
    for (const b of bindings ?? []) {
      const hostPort = Number(b.HostPort);
      if (hostPort > 0 && !out.some((p) => p.hostPort === hostPort && p.protocol === protocol))
        out.push({ containerPort: Number(port), hostPort, protocol: protocol === 'udp' ? 'udp' : 'tcp' });
    }
  }
  return out;
}

/** A docker-modem error as the port's: a 404 on an image is IMAGE.NOT_FOUND, no answer is ENGINE.UNAVAILABLE. */
function translate(error: unknown, code: EngineErrorCode): EngineError {
  if (error instanceof EngineError) return error;
  const e = error as { statusCode?: number; code?: string; message?: string; json?: { message?: string } };
  const message = (e.json?.message ?? e.message ?? String(error)).trim();
  if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.code === 'EPIPE')
    return new EngineError('ENGINE.UNAVAILABLE', message);
  const status = e.statusCode;
  if (code === 'IMAGE.PULL_FAILED' && /not found|manifest unknown|does not exist/i.test(message))
    return new EngineError('IMAGE.NOT_FOUND', message, status);
  if (status === 404 && code === 'CONTAINER.CREATE_FAILED' && /image/i.test(message))
    return new EngineError('IMAGE.NOT_FOUND', message, status);
  return new EngineError(code, message, status);
}
