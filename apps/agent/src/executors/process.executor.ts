import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  ExecutionEvent,
  Executor,
  OutputChunk,
  OutputStream,
  ProcessExecutorOptions,
  ProcessSpec,
} from './execution.types';
import { CommandContext, makeDir, processEnv, runCommand, signalGroup } from './process-os';
import { LogLine, RotatingLog } from './rotating-log';
import type { MeasuredUsage } from '@hcn/contracts';
import { measured } from '../isolation/cgroups';

export * from './execution.types';

const STREAMS: OutputStream[] = ['stdout', 'stderr'];
const STDIO: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
/** How long output may keep flowing after the process exited (an escaped descendant holding the pipe). */
const DRAIN_MS = 2000;

type Ending = Extract<ExecutionEvent, { kind: 'completed' | 'failed' | 'stopped' }>;

interface Allocation {
  spec: ProcessSpec;
  child?: ChildProcess;
  logs?: Record<OutputStream, RotatingLog>;
  spawnError?: Error;
  stopping?: { reason: string; endedBy: 'SIGTERM' | 'SIGKILL' };
  /** Who and where its commands run (exec probes): its user, directory and environment. */
  context?: CommandContext;
  exited: boolean;
  finished: boolean;
  timers: NodeJS.Timeout[];
  done: Promise<void>;
  resolveDone: () => void;
}

/**
 * Runs one OS process per allocation in its own process group under `<baseDir>/<allocationId>/`, with size-rotated
 * stdout/stderr logs there, and reports started / completed / failed / stopped. When the leading process exits,
 * whatever is left of its process group is killed, so nothing an allocation started outlives it.
 */
export class ProcessExecutor implements Executor {
  private readonly allocs = new Map<string, Allocation>();
  private readonly maxLogBytes: number;
  private readonly keepLogFiles: number;
  private readonly now: () => Date;
  private seq = 0;

  constructor(private readonly opts: ProcessExecutorOptions) {
    this.maxLogBytes = Math.max(1, Math.floor(opts.maxLogBytes ?? 10 * 1024 * 1024));
    this.keepLogFiles = Math.max(0, Math.floor(opts.keepLogFiles ?? 3));
    this.now = opts.now ?? (() => new Date());
  }

  /** Starts an allocation; false (and nothing happens) when this executor already ran or runs that id. */
  start(spec: ProcessSpec): boolean {
    if (this.allocs.has(spec.allocationId)) return false;
    let resolveDone = (): void => undefined;
    const done = new Promise<void>((r) => (resolveDone = r));
    const a: Allocation = { spec, exited: false, finished: false, timers: [], done, resolveDone };
    this.allocs.set(spec.allocationId, a);
    try {
      const { dir, cwd } = this.prepare(a);
      const sandbox = this.opts.sandbox;
      const launch = sandbox
        ? sandbox.prepare(
            spec.allocationId,
            [dir, cwd],
            spec.command,
            spec.args,
            processEnv(spec),
            spec.limits,
          )
        : { command: spec.command, args: spec.args, env: processEnv(spec) };
      const env = processEnv(spec);
      a.context = { cwd, env: sandbox ? { ...env, HOME: dir } : env, uid: launch.uid, gid: launch.gid };
      a.child = spawn(launch.command, launch.args, {
        cwd,
        env: launch.env,
        uid: launch.uid,
        gid: launch.gid,
        detached: true,
        stdio: STDIO,
      });
    } catch (err) {
      a.spawnError = err instanceof Error ? err : new Error(String(err));
      this.finish(a, null, null);
      return true;
    }
    this.watch(a, a.child);
    const pid = a.child.pid;
    if (pid !== undefined)
      this.emit({ kind: 'started', allocationId: spec.allocationId, pid, at: this.at() });
    return true;
  }

  /** SIGTERM to the process group, SIGKILL after the grace period; resolves once the process has ended. */
  stop(allocationId: string, reason: string): Promise<void> {
    const a = this.allocs.get(allocationId);
    if (!a || a.finished) return Promise.resolve();
    const pid = a.child?.pid;
    if (pid !== undefined && !a.exited && !a.stopping) {
      const stopping = { reason, endedBy: 'SIGTERM' as 'SIGTERM' | 'SIGKILL' };
      a.stopping = stopping;
      signalGroup(pid, 'SIGTERM');
      const graceMs = Math.max(0, a.spec.stopGraceSeconds * 1000) || 0;
      const escalate = (): void => {
        stopping.endedBy = 'SIGKILL';
        signalGroup(pid, 'SIGKILL');
      };
      a.timers.push(setTimeout(escalate, graceMs));
    }
    return a.done;
  }

  /** Runs a command as the allocation's process runs (user, directory, environment; not in its cgroup). */
  exec(allocationId: string, command: readonly string[], timeoutMs: number): Promise<number | null> {
    const a = this.allocs.get(allocationId);
    if (!a?.context || a.exited) return Promise.resolve(null);
    return runCommand(command, a.context, timeoutMs);
  }

  /** Stops every running allocation (agent shutdown). */
  async stopAll(reason: string): Promise<void> {
    await Promise.all(this.running().map((id) => this.stop(id, reason)));
  }

  knows(allocationId: string): boolean {
    return this.allocs.has(allocationId);
  }

  /** Allocation ids whose process runs now. */
  running(): string[] {
    return [...this.allocs.values()]
      .filter((a) => !a.finished && a.child?.pid !== undefined)
      .map((a) => a.spec.allocationId);
  }

  /** The last `lines` lines of an allocation's output (both streams: in arrival order), across rotated files. */
  tail(allocationId: string, lines: number, stream: OutputStream | 'both' = 'both'): string[] {
    const logs = this.allocs.get(allocationId)?.logs;
    if (!logs) return [];
    const picked = stream === 'both' ? STREAMS : [stream];
    const all: LogLine[] = picked.flatMap((s) => logs[s].tail(lines));
    if (picked.length > 1) all.sort((x, y) => x.seq - y.seq); // stable: ties keep stdout first
    return (lines > 0 ? all.slice(-lines) : []).map((l) => l.text);
  }

  /** Output written since the last call, at most `maxBytes` per stream; offsets count every byte ever written. */
  readNewOutput(allocationId: string, maxBytes = 64 * 1024): OutputChunk[] {
    const a = this.allocs.get(allocationId);
    if (!a?.logs) return [];
    const out: OutputChunk[] = [];
    for (const stream of STREAMS) {
      const chunk = a.logs[stream].readNew(maxBytes, a.finished);
      if (chunk) out.push({ stream, ...chunk });
    }
    return out;
  }

  /** Drops what this executor remembers of a finished allocation (its files stay); true when it did. */
  forget(allocationId: string): boolean {
    const a = this.allocs.get(allocationId);
    return a?.finished === true && this.allocs.delete(allocationId);
  }

  /** Creates the allocation and working dirs and opens the logs. */
  private prepare(a: Allocation): { dir: string; cwd: string } {
    const id = a.spec.allocationId;
    if (!id || id === '.' || id === '..' || /[/\\\0]/.test(id))
      throw new Error(`invalid allocation id '${id}'`);
    const dir = join(this.opts.baseDir, id);
    const cwd = resolve(dir, a.spec.workingDir ?? '.');
    makeDir(dir);
    makeDir(cwd);
    const stdout = this.openLog(join(dir, 'stdout.log'));
    try {
      a.logs = { stdout, stderr: this.openLog(join(dir, 'stderr.log')) };
    } catch (err) {
      stdout.close();
      throw err;
    }
    return { dir, cwd };
  }

  private openLog(path: string): RotatingLog {
    return new RotatingLog(path, this.maxLogBytes, this.keepLogFiles);
  }

  private watch(a: Allocation, child: ChildProcess): void {
    for (const s of STREAMS) {
      const log = a.logs?.[s];
      child[s]?.on('data', (chunk: Buffer) => log?.append(chunk, this.seq++));
      child[s]?.on('error', () => undefined); // a broken pipe ends the output; the exit is reported anyway
    }
    child.on('error', (err) => {
      a.spawnError ??= err;
      if (child.pid === undefined) this.onExit(a, child);
    });
    child.on('exit', () => this.onExit(a, child));
    child.on('close', (code, signal) => this.finish(a, code, signal));
  }

  /** The leader is gone: kill the rest of its group, give the pipes a moment to drain. */
  private onExit(a: Allocation, child: ChildProcess): void {
    if (a.exited) return;
    a.exited = true;
    this.clearTimers(a);
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    const drain = (): void => STREAMS.forEach((s) => child[s]?.destroy());
    a.timers.push(setTimeout(drain, DRAIN_MS));
  }

  private finish(a: Allocation, code: number | null, signal: NodeJS.Signals | null): void {
    if (a.finished) return;
    a.finished = true;
    a.exited = true;
    this.clearTimers(a);
    STREAMS.forEach((s) => a.logs?.[s].close());
    this.emit(this.ending(a, code, signal));
    a.resolveDone();
  }

  private ending(a: Allocation, code: number | null, signal: NodeJS.Signals | null): Ending {
    const cgroup = this.opts.sandbox?.release(a.spec.allocationId);
    const base = {
      allocationId: a.spec.allocationId,
      at: this.at(),
      ...(cgroup ? { usage: measured(cgroup) } : {}),
    };
    if (a.spawnError && a.child?.pid === undefined) {
      const reason = `could not start: ${a.spawnError.message}`;
      return { ...base, kind: 'failed', reason, exitCode: null, signal: null };
    }
    if (a.stopping) return { ...base, kind: 'stopped', ...a.stopping, exitCode: code, signal };
    if (cgroup && cgroup.oomKills > 0) {
      const limit = a.spec.limits?.memoryBytes ? ` (memory limit ${a.spec.limits.memoryBytes} bytes)` : '';
      const reason = `ALLOCATION.OOM_KILLED: out of memory${limit}`;
      return { ...base, kind: 'failed', reason, exitCode: code, signal };
    }
    if (code === 0) return { ...base, kind: 'completed', exitCode: 0 };
    const reason = signal ? `killed by ${signal}` : `exited with code ${code}`;
    return { ...base, kind: 'failed', reason, exitCode: code, signal };
  }

  /** What a running allocation used so far (its cgroup; undefined without one). */
  usage(allocationId: string): MeasuredUsage | undefined {
    if (!this.running().includes(allocationId)) return undefined;
    const cgroup = this.opts.sandbox?.usage(allocationId);
    return cgroup ? measured(cgroup) : undefined;
  }

  private clearTimers(a: Allocation): void {
    a.timers.forEach((t) => clearTimeout(t));
    a.timers = [];
  }

  private emit(e: ExecutionEvent): void {
    try {
      this.opts.onEvent(e);
    } catch (err) {
      process.emitWarning(`ProcessExecutor onEvent handler threw: ${String(err)}`);
    }
  }

  private at(): string {
    return this.now().toISOString();
  }
}
