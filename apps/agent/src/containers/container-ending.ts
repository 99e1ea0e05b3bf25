import type { ExecutionEvent } from '../executors/execution.types';
import { CgroupUsage, measured } from '../isolation/cgroups';
import type { ContainerStatus } from './engine';

/** How a container's allocation ended, as the executor reports it. */
export type ContainerEnding = Extract<ExecutionEvent, { kind: 'completed' | 'failed' | 'stopped' }>;

/** What the executor knows of a run when it ends. */
export interface EndedRun {
  readonly memoryBytes: number;
  readonly stopping?: { reason: string; endedBy: 'SIGTERM' | 'SIGKILL' };
}

/**
 * The ending of a container's allocation: stopped when the agent stopped it, failed with the engine's error or an
 * OOM kill, completed on exit 0, else failed with its exit code or signal; with its usage when measured (its cgroup,
 * or the engine's last stats).
 */
export function containerEnding(
  base: { allocationId: string; at: string },
  run: EndedRun,
  status: ContainerStatus | undefined,
  cgroup: CgroupUsage | undefined,
  error?: string,
): ContainerEnding {
  const common = { ...base, ...(cgroup ? { usage: measured(cgroup) } : {}) };
  if (error !== undefined && !run.stopping)
    return { ...common, kind: 'failed', reason: error, exitCode: null, signal: null };
  const exitCode = status ? status.exitCode : null;
  const signal = exitCode !== null && exitCode > 128 ? signalName(exitCode - 128) : null;
  if (run.stopping)
    return { ...common, kind: 'stopped', ...stopped(run.stopping, exitCode), exitCode, signal };
  if (status && oomKilled(run, status, cgroup)) {
    const limit = run.memoryBytes > 0 ? ` (memory limit ${run.memoryBytes} bytes)` : '';
    return {
      ...common,
      kind: 'failed',
      reason: `ALLOCATION.OOM_KILLED: out of memory${limit}`,
      exitCode,
      signal,
    };
  }
  if (exitCode === 0) return { ...common, kind: 'completed', exitCode: 0 };
  const detail = status?.error ? `: ${status.error}` : '';
  const reason = signal ? `killed by ${signal}${detail}` : `exited with code ${exitCode}${detail}`;
  return { ...common, kind: 'failed', reason, exitCode, signal };
}

/**
 * How a stopped container ended: the SIGKILL after the grace only when it died of a SIGKILL (exit code 137); one
 * that exited by itself after the SIGTERM, though the engine said so only once the grace was over, ended by SIGTERM.
 */
function stopped(
  stopping: NonNullable<EndedRun['stopping']>,
  exitCode: number | null,
): NonNullable<EndedRun['stopping']> {
  const notKilled = exitCode !== null && exitCode !== 128 + 9;
  return stopping.endedBy === 'SIGKILL' && notKilled ? { ...stopping, endedBy: 'SIGTERM' } : stopping;
}

/**
 * The engine's OOM flag, or the kernel's OOM count of the allocation's cgroup, or a SIGKILL nobody here sent to a
 * container whose memory peaked at its limit (cgroup v1 counts OOM kills only in the container's own cgroup,
 * which is gone once it ended, and Podman does not always set the flag).
 */
function oomKilled(run: EndedRun, status: ContainerStatus, usage: CgroupUsage | undefined): boolean {
  if (status.oomKilled) return true;
  if (!usage) return false;
  if (usage.oomKills > 0) return true;
  return status.exitCode === 137 && run.memoryBytes > 0 && usage.memoryPeakBytes >= run.memoryBytes;
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  15: 'SIGTERM',
};

function signalName(n: number): string {
  return SIGNALS[n] ?? `SIG${n}`;
}
