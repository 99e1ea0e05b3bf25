import type { AllocationLimits, MeasuredUsage, PublishedPort } from '@hcn/contracts';
import type { ProcessSandbox } from '../isolation/process-sandbox';

/** What to run for one allocation. */
export interface ProcessSpec {
  allocationId: string;
  workloadId: string;
  instanceId: string;
  nodeId: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Relative to the allocation dir when relative; default: the allocation dir itself. */
  workingDir?: string;
  stopGraceSeconds: number;
  /** The reservation to enforce (absent: none). */
  limits?: AllocationLimits;
}

/** What the executor reports (the agent turns these into reports to the hub). */
export type ExecutionEvent =
  | { kind: 'started'; allocationId: string; pid: number; at: string; ports?: PublishedPort[] }
  | { kind: 'completed'; allocationId: string; exitCode: number; at: string; usage?: MeasuredUsage }
  | {
      kind: 'failed';
      allocationId: string;
      reason: string;
      exitCode: number | null;
      signal: string | null;
      at: string;
      usage?: MeasuredUsage;
    }
  /** The executor can no longer follow the allocation (its engine went away); it is given up. */
  | { kind: 'lost'; allocationId: string; reason: string; at: string }
  | {
      kind: 'stopped';
      allocationId: string;
      endedBy: 'SIGTERM' | 'SIGKILL';
      exitCode: number | null;
      signal: string | null;
      at: string;
      reason: string;
      usage?: MeasuredUsage;
    };

/** Which output stream of a process. */
export type OutputStream = 'stdout' | 'stderr';

/** A slice of output not shipped before; `offset` counts every byte the stream ever wrote. */
export interface OutputChunk {
  stream: OutputStream;
  offset: number;
  text: string;
}

/** Construction options of the process executor. */
export interface ProcessExecutorOptions {
  /** Each allocation gets `<baseDir>/<allocationId>/`. */
  baseDir: string;
  onEvent: (e: ExecutionEvent) => void;
  /** Size at which a log file is rotated (default 10 MiB). */
  maxLogBytes?: number;
  /** Rotated files kept besides the current one: `stdout.log.1` … `.N` (default 3). */
  keepLogFiles?: number;
  now?: () => Date;
  /** Runs each process as the workload user inside its limits (absent: as the agent, unlimited). */
  sandbox?: ProcessSandbox;
}

/** What runs allocations on this node (host processes, containers): the runner drives each the same way. */
export interface Executor {
  /** Allocation ids running now. */
  running(): string[];
  /** True when this executor runs or ran the allocation and has not forgotten it. */
  knows(allocationId: string): boolean;
  /** Ends an allocation (SIGTERM, SIGKILL after its grace period); resolves once it ended. */
  stop(allocationId: string, reason: string): Promise<void>;
  stopAll(reason: string): Promise<void>;
  /** Output written since the last call; offsets count every byte the stream ever wrote. */
  readNewOutput(allocationId: string, maxBytes?: number): OutputChunk[];
  /** Drops what is remembered of a finished allocation; true when it did. */
  forget(allocationId: string): boolean;
  /** What a running allocation used so far (undefined: not measured here). */
  usage(allocationId: string): MeasuredUsage | undefined;
  /**
   * Runs a command inside a running allocation (its user, directory and environment; a container's exec) and
   * resolves with its exit code; null when it did not end within `timeoutMs` (it is killed) or could not run.
   */
  exec(allocationId: string, command: readonly string[], timeoutMs: number): Promise<number | null>;
}
