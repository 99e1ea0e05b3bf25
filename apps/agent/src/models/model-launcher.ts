import {
  CONTAINER_MODEL_DIR,
  DEFAULT_MODEL_PORT,
  MODEL_FAILURES,
  underAllowedDirectory,
  type AgentCommand,
  type Probe,
  type PublishedPort,
  type ServicePlacement,
} from '@hcn/contracts';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { BindMount } from '../containers/engine';
import { runCommand } from '../executors/process-os';
import type { WorkloadUser } from '../isolation/workload-user';
import {
  DEFAULT_MODEL_DOWNLOAD_SECONDS,
  DEFAULT_MODEL_MAX_BYTES,
  type ModelDownloadLimits,
} from './model-config';
import { ModelDownloadCancelled, ModelSourceError, downloadModel } from './model-download';
import type { ServingEntry } from './model-frameworks';

type RunCommand = Extract<AgentCommand, { kind: 'run' }>;
type Placement = RunCommand['placement'];

/** A model placement made runnable: the service placement to run, and the model's read-only mount (containers). */
export interface PreparedModel {
  readonly command: RunCommand;
  readonly mounts: readonly BindMount[];
}

/** What the launcher needs of the agent. */
export interface ModelLauncherOptions {
  /** How a framework is served here with a runtime (undefined: it is not; absent: none is). */
  entry?(framework: string, runtime: 'process' | 'container'): ServingEntry | undefined;
  /** Allocation directories: a downloaded model goes to `<baseDir>/<allocationId>/model/`. */
  readonly baseDir: string;
  /** Cap and time limit of a `modelUrl` download (absent: the defaults). */
  readonly download?: ModelDownloadLimits;
  /** Host directories containers may bind: a container model's `modelPath` must be under one (absent: none). */
  readonly allowedHostPaths?: readonly string[];
  /** The user process workloads run as (a process model's file must be readable by it). */
  readonly user?: WorkloadUser;
  /** Host ports for a process service's named ports, held for the allocation (the service runtime's). */
  reservePorts(allocationId: string, service: ServicePlacement): Promise<PublishedPort[]>;
}

/** The readiness probe of a model whose spec gives none: GET the framework's health path, else a TCP connect. */
export function defaultModelProbe(healthPath: string | undefined, portName: string): Probe {
  return {
    ...(healthPath ? { http: { path: healthPath, port: portName } } : { tcp: { port: portName } }),
    initialDelaySeconds: 0,
    intervalSeconds: 1,
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
  };
}

/**
 * The service placement that serves a model with `entry`: `{model}` and `{port}` filled in the command, args and
 * the entry's environment (the spec's environment wins), HCN_MODEL_PATH and HCN_MODEL_FRAMEWORK set, the readiness
 * probe the spec's or the default; a container gets the entry's image, its `http` port and the model mounted
 * read-only at `/models/<file>`. `hostModel` is the model on the node; `port` the one the server listens on.
 */
export function servingPlacement(
  placement: Placement,
  entry: ServingEntry,
  hostModel: string,
  port: number,
): { placement: Placement; mounts: BindMount[] } {
  const { model, ...rest } = placement;
  const container = entry.runtime === 'container';
  const seen = container ? `${CONTAINER_MODEL_DIR}/${basename(hostModel)}` : hostModel;
  const fill = (text: string): string => text.replaceAll('{model}', seen).replaceAll('{port}', String(port));
  const service = placement.service ?? { ports: [] };
  const http = service.ports[0];
  const ports = service.ports.map((p) =>
    container ? { ...p, containerPort: port } : { ...p, hostPort: port },
  );
  const env = {
    ...Object.fromEntries(Object.entries(entry.env).map(([k, v]) => [k, fill(v)])),
    HCN_MODEL_PATH: seen,
    HCN_MODEL_FRAMEWORK: model?.framework ?? '',
    ...placement.env,
  };
  const serving: Placement = {
    ...rest,
    command: entry.command ? fill(entry.command) : '',
    args: entry.args.map(fill),
    env,
    service: {
      ...service,
      ports,
      readinessProbe: service.readinessProbe ?? defaultModelProbe(entry.healthPath, http?.name ?? 'http'),
    },
    ...(container
      ? {
          container: {
            namespace: model?.namespace ?? '',
            image: entry.image ?? '',
            pullPolicy: entry.pullPolicy ?? 'ifNotPresent',
            ports: ports.map((p) => ({ ...p, containerPort: port })),
            volumes: [],
          },
        }
      : {}),
  };
  return {
    placement: serving,
    mounts: container ? [{ source: hostModel, target: seen, readOnly: true }] : [],
  };
}

/**
 * Makes model placements runnable, one at a time per allocation and cancellable: finds the framework's server in
 * the agent's configuration, gets the model (checks `modelPath` on the node, or downloads `modelUrl` into the
 * allocation's directory), picks a process server's port, and hands the service placement on. Each failure is a
 * stable `MODEL.*` reason.
 */
export class ModelLauncher {
  private readonly preparing = new Map<string, { abort: AbortController; done: Promise<void> }>();

  private readonly limits: ModelDownloadLimits;

  constructor(private readonly opts: ModelLauncherOptions) {
    this.limits = opts.download ?? {
      maxBytes: DEFAULT_MODEL_MAX_BYTES,
      timeoutSeconds: DEFAULT_MODEL_DOWNLOAD_SECONDS,
    };
  }

  /** True while an allocation's model is being prepared. */
  knows(allocationId: string): boolean {
    return this.preparing.has(allocationId);
  }

  /** Prepares a model placement, then `launch`es it, or `fail`s it with the reason; nothing after a cancel. */
  start(
    command: RunCommand,
    launch: (prepared: PreparedModel) => void,
    fail: (reason: string) => void,
  ): void {
    const id = command.placement.allocationId;
    if (this.preparing.has(id)) return;
    const abort = new AbortController();
    const done = this.prepare(command, abort.signal).then(
      (prepared) => {
        this.preparing.delete(id);
        if (!abort.signal.aborted) launch(prepared);
      },
      (error: Error) => {
        this.preparing.delete(id);
        if (abort.signal.aborted || error instanceof ModelDownloadCancelled) return;
        const reason =
          error instanceof ModelSourceError ? error.message : `MODEL.PREPARE_FAILED: ${error.message}`;
        fail(reason.length > 1000 ? `${reason.slice(0, 999)}…` : reason); // reports carry at most 2,000
      },
    );
    this.preparing.set(id, { abort, done });
  }

  /** Cancels an allocation's preparation (its download stops); true when one was under way. */
  async cancel(allocationId: string): Promise<boolean> {
    const preparing = this.preparing.get(allocationId);
    if (!preparing) return false;
    preparing.abort.abort();
    await preparing.done;
    return true;
  }

  /** Cancels every preparation (agent shutdown). */
  async cancelAll(): Promise<void> {
    await Promise.all([...this.preparing.keys()].map((id) => this.cancel(id)));
  }

  private async prepare(command: RunCommand, signal: AbortSignal): Promise<PreparedModel> {
    const p = command.placement;
    const model = p.model;
    if (!model) throw new Error('not a model placement');
    const entry = this.opts.entry?.(model.framework, model.runtime);
    if (!entry)
      throw new ModelSourceError(
        MODEL_FAILURES.frameworkUnavailable,
        `this node serves no ${model.framework} models with the ${model.runtime} runtime`,
      );
    const hostModel = model.modelUrl
      ? await downloadModel(
          model.modelUrl,
          join(this.opts.baseDir, p.allocationId, 'model'),
          this.limits,
          signal,
        )
      : await this.checkPath(model.modelPath ?? '', model.runtime);
    const service = p.service ?? { ports: [] };
    let port = service.ports[0]?.containerPort ?? DEFAULT_MODEL_PORT;
    if (model.runtime === 'process') {
      const [picked] = await this.opts.reservePorts(p.allocationId, service);
      port = picked?.hostPort ?? 0;
    }
    const { placement, mounts } = servingPlacement(p, entry, hostModel, port);
    return { command: { ...command, placement }, mounts };
  }

  /** A `modelPath` that exists; under the allowed host paths for a container, readable by the workload user for a process. */
  private async checkPath(path: string, runtime: 'process' | 'container'): Promise<string> {
    const found = await stat(path).catch(() => undefined);
    if (!found) throw new ModelSourceError(MODEL_FAILURES.notFound, `${path}: no such file on this node`);
    const allowed = this.opts.allowedHostPaths ?? [];
    if (runtime === 'container' && !underAllowedDirectory(path, allowed))
      throw new ModelSourceError(
        MODEL_FAILURES.pathNotAllowed,
        `${path} is not under a directory containers may bind here (${allowed.join(', ') || 'none'})`,
      );
    const user = this.opts.user;
    if (runtime === 'process' && user) {
      const context = {
        cwd: '/',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        uid: user.uid,
        gid: user.gid,
      };
      if ((await runCommand(['test', '-r', path], context, 10_000)) !== 0)
        throw new ModelSourceError(MODEL_FAILURES.notReadable, `${path} is not readable by ${user.name}`);
    }
    return path;
  }
}
