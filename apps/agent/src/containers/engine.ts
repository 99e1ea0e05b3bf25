import type { PublishedPort } from '@hcn/contracts';

/** Why the engine refused or failed (dotted codes, reported with the engine's message). */
export type EngineErrorCode =
  | 'IMAGE.NOT_FOUND'
  | 'IMAGE.PULL_FAILED'
  | 'CONTAINER.CREATE_FAILED'
  | 'CONTAINER.START_FAILED'
  | 'CONTAINER.UPDATE_FAILED'
  | 'CONTAINER.NOT_FOUND'
  | 'ENGINE.UNAVAILABLE'
  | 'VOLUME.HOST_PATH_DENIED';

/** A failure of the container engine, translated from the vendor client at the adapter. */
export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    /** The engine's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(`${code}: ${message}`);
  }
}

/** A device node handed into a container. */
export interface DeviceMapping {
  readonly hostPath: string;
  readonly containerPath: string;
}

/** A bind mount into a container. */
export interface BindMount {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
}

/** Everything the engine is asked to create for one allocation (the adapter maps it to the engine's API). */
export interface ContainerRequest {
  readonly name: string;
  readonly image: string;
  /** Overrides the image's entrypoint when present. */
  readonly entrypoint?: readonly string[];
  /** Overrides the image's command when present. */
  readonly cmd?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly workingDir?: string;
  readonly user?: string;
  readonly ports: readonly { containerPort: number; hostPort: number; protocol: 'tcp' | 'udp' }[];
  readonly binds: readonly BindMount[];
  readonly volumes: readonly BindMount[];
  readonly devices: readonly DeviceMapping[];
  /** CPU quota in millicores (0: none). */
  readonly cpuMillis: number;
  /** Memory limit, swap included (0: none). */
  readonly memoryBytes: number;
  readonly pidsLimit: number;
  readonly ulimits: readonly { name: string; soft: number; hard: number }[];
  /** A cgroup the container is created under (the agent's, to read usage after it ended). */
  readonly cgroupParent?: string;
}

/** What the engine says about one container. */
export interface ContainerStatus {
  readonly id: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly running: boolean;
  /** Created or running, not yet ended. */
  readonly live: boolean;
  readonly pid: number;
  readonly exitCode: number;
  readonly oomKilled: boolean;
  readonly error: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly ports: readonly PublishedPort[];
}

/** Usage the engine measured for a running container. */
export interface ContainerStats {
  readonly cpuSeconds: number;
  readonly memoryBytes: number;
}

/** Output of a container, demultiplexed. */
export interface OutputSink {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
}

/**
 * The container engine port: the Docker Engine API's operations the container executor needs. Adapters translate
 * their client's errors into `EngineError`.
 */
export interface ContainerEngine {
  /** Resolves when the engine answers; rejects with ENGINE.UNAVAILABLE otherwise. */
  ping(): Promise<void>;
  /** True when the image is present locally. */
  hasImage(image: string): Promise<boolean>;
  /** Pulls an image (IMAGE.PULL_FAILED, or IMAGE.NOT_FOUND when the registry has no such image). */
  pull(image: string): Promise<void>;
  /** Creates a container; returns its id. */
  create(request: ContainerRequest): Promise<string>;
  start(id: string): Promise<void>;
  /** Sets a created or running container's CPU quota (CONTAINER.UPDATE_FAILED when the engine cannot). */
  limitCpu(id: string, cpuMillis: number): Promise<void>;
  inspect(id: string): Promise<ContainerStatus>;
  /** Sends a signal to the container's main process (ignored when it already ended). */
  kill(id: string, signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Resolves with the exit code once the container ended. */
  wait(id: string): Promise<number>;
  /** Follows the container's output from its start until it ends; resolves when the stream ends. */
  follow(id: string, sink: OutputSink): Promise<void>;
  stats(id: string): Promise<ContainerStats>;
  remove(id: string): Promise<void>;
  /** Containers carrying every one of these labels (`key=value`), running or not. */
  list(labels: readonly string[]): Promise<ContainerStatus[]>;
  /**
   * Runs a command inside a running container (its user and environment) and resolves with its exit code; null when
   * it did not end within `timeoutMs` (an exec cannot be killed through the API: it is left to end).
   */
  exec(id: string, command: readonly string[], timeoutMs: number): Promise<number | null>;
}
