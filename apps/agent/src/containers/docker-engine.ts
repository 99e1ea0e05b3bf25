import Docker from 'dockerode';
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

/** The Docker Engine API (Docker, or Podman's compatible service) over a unix socket, through dockerode. */
export class DockerEngine implements ContainerEngine {
  private readonly docker: Docker;

  constructor(readonly socketPath: string) {
    this.docker = new Docker({ socketPath });
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
      await Promise.race([this.call('ENGINE.UNAVAILABLE', () => this.docker.ping()), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async hasImage(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw translate(error, 'ENGINE.UNAVAILABLE');
    }
  }

  async pull(image: string): Promise<void> {
    await this.call('IMAGE.PULL_FAILED', async () => {
      const stream = await this.docker.pull(image);
      await new Promise<void>((resolve, reject) =>
        this.docker.modem.followProgress(stream, (error: Error | null, events: { error?: string }[]) => {
          const failed = error?.message ?? events.find((e) => e.error)?.error;
          if (failed) reject(new Error(failed));
          else resolve();
        }),
      );
    });
  }

  async create(request: ContainerRequest): Promise<string> {
    const container = await this.call('CONTAINER.CREATE_FAILED', () =>
      this.docker.createContainer(createOptions(request)),
    );
    return container.id;
  }

  async start(id: string): Promise<void> {
    await this.call('CONTAINER.START_FAILED', () => this.docker.getContainer(id).start());
  }

  async inspect(id: string): Promise<ContainerStatus> {
    const info = await this.call('CONTAINER.NOT_FOUND', () => this.docker.getContainer(id).inspect());
    return statusOf_(info);
  }

  async kill(id: string, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    try {
      await this.docker.getContainer(id).kill({ signal });
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 || status === 409 || status === 304) return; // gone or not running: nothing to signal
      throw translate(error, 'ENGINE.UNAVAILABLE');
    }
  }

  async wait(id: string): Promise<number> {
    const result = await this.call('ENGINE.UNAVAILABLE', () => this.docker.getContainer(id).wait());
    return Number((result as { StatusCode?: number }).StatusCode ?? -1);
  }

  async follow(id: string, sink: OutputSink): Promise<void> {
    const stream = await this.call('ENGINE.UNAVAILABLE', () =>
      this.docker.getContainer(id).logs({ follow: true, stdout: true, stderr: true }),
    );
    const out = new PassThrough();
    const err = new PassThrough();
    out.on('data', (chunk: Buffer) => sink.stdout(chunk));
    err.on('data', (chunk: Buffer) => sink.stderr(chunk));
    this.docker.modem.demuxStream(stream, out, err);
    await new Promise<void>((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
  }

  async stats(id: string): Promise<ContainerStats> {
    const raw = (await this.call('ENGINE.UNAVAILABLE', () =>
      this.docker.getContainer(id).stats({ stream: false }),
    )) as unknown as Partial<Docker.ContainerStats>;
    return {
      cpuSeconds: (raw.cpu_stats?.cpu_usage?.total_usage ?? 0) / 1e9,
      memoryBytes: raw.memory_stats?.usage ?? 0,
    };
  }

  async remove(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      if (statusOf(error) !== 404) throw translate(error, 'ENGINE.UNAVAILABLE');
    }
  }

  async list(labels: readonly string[]): Promise<ContainerStatus[]> {
    const found = await this.call('ENGINE.UNAVAILABLE', () =>
      this.docker.listContainers({ all: true, filters: { label: [...labels] } }),
    );
    const statuses = await Promise.all(found.map((c) => this.inspect(c.Id).catch(() => undefined)));
    return statuses.filter((s): s is ContainerStatus => s !== undefined);
  }

  private async call<T>(code: EngineErrorCode, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw translate(error, code);
    }
  }
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

function statusOf_(info: Docker.ContainerInspectInfo): ContainerStatus {
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

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

/** A dockerode error as the port's: a 404 on an image is IMAGE.NOT_FOUND, no answer is ENGINE.UNAVAILABLE. */
function translate(error: unknown, code: EngineErrorCode): EngineError {
  if (error instanceof EngineError) return error;
  const e = error as { statusCode?: number; code?: string; message?: string; json?: { message?: string } };
  const message = (e.json?.message ?? e.message ?? String(error)).trim();
  if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.code === 'EPIPE')
    return new EngineError('ENGINE.UNAVAILABLE', message);
  if (code === 'IMAGE.PULL_FAILED' && /not found|manifest unknown|does not exist/i.test(message))
    return new EngineError('IMAGE.NOT_FOUND', message);
  if (e.statusCode === 404 && code === 'CONTAINER.CREATE_FAILED' && /image/i.test(message))
    return new EngineError('IMAGE.NOT_FOUND', message);
  return new EngineError(code, message);
}
