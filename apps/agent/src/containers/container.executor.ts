import { join } from 'node:path';
import { ExecutionEvent, Executor, OutputChunk, OutputStream } from '../executors/execution.types';
import { makeDir } from '../executors/process-os';
import { RotatingLog } from '../executors/rotating-log';
import { CgroupMode, CgroupUsage, cgroupUsage, measured, removeCgroup } from '../isolation/cgroups';
import type { MeasuredUsage } from '@hcn/contracts';
import {
  ContainerPolicy,
  ContainerRunSpec,
  LABELS,
  containerName,
  containerRequest,
  startingCpuMillis,
} from './container-request';
import { ContainerEngine, ContainerStatus, EngineError } from './engine';
import { EngineHealth } from './engine-health';
import { EngineUsage } from './engine-usage';
import { ImagePuller } from './image-puller';
import { containerEnding } from './container-ending';

const STREAMS: OutputStream[] = ['stdout', 'stderr'];
/** How long output may keep arriving after the container ended. */
const DRAIN_MS = 2000;

type Ending = ReturnType<typeof containerEnding>;

/** Options of the container executor. */
export interface ContainerExecutorOptions {
  readonly engine: ContainerEngine;
  readonly nodeId: () => string;
  /** Each allocation's logs go to `<baseDir>/<allocationId>/`. */
  readonly baseDir: string;
  readonly onEvent: (e: ExecutionEvent) => void;
  readonly policy: ContainerPolicy;
  readonly cgroups: CgroupMode;
  /** Finished containers kept per workload for inspection (older ones are removed). */
  readonly keepFinished: number;
  /** A container with a smaller CPU quota starts with this one and gets its own right after (0: never; 250). */
  readonly startCpuMillis?: number;
  /** First back-off after a failed pull of an image (doubles per failure, at most 5 minutes). */
  readonly pullBackoffMs?: number;
  /** How often the engine's stats are read for containers without a cgroup the agent reads (default 5 s). */
  readonly statsIntervalMs?: number;
  /** How often to ask an engine that went away whether it is back (default 2 s). */
  readonly engineRetryMs?: number;
  readonly now?: () => Date;
}

interface Run {
  readonly allocationId: string;
  /** The engine went away while it ran: reported lost, removed once the engine answers again. */
  lost?: boolean;
  readonly workloadId: string;
  readonly graceSeconds: number;
  readonly memoryBytes: number;
  id?: string;
  logs: Record<OutputStream, RotatingLog>;
  stopping?: { reason: string; endedBy: 'SIGTERM' | 'SIGKILL' };
  started: boolean;
  /** The engine said the container ended (its output may still be draining). */
  exited?: boolean;
  finished: boolean;
  timers: NodeJS.Timeout[];
  done: Promise<void>;
  resolveDone: () => void;
}

/**
 * Runs allocations as containers through the Docker Engine API: pulls by policy, creates each container with its
 * limits and labels, streams its output into rotated logs, reports started / completed / failed (OOM-killed and
 * engine errors with their codes) / stopped, removes finished containers beyond the last few per workload, and
 * re-adopts the containers of this node after an agent restart.
 */
export class ContainerExecutor implements Executor {
  private readonly runs = new Map<string, Run>();
  private reclaiming = false;
  private readonly health: EngineHealth;
  private readonly sampled: EngineUsage;
  private readonly puller: ImagePuller;
  private readonly now: () => Date;
  /** Set to 0 once the engine could not lower a quota: containers then start with their own. */
  private startCpuMillis: number;

  constructor(private readonly opts: ContainerExecutorOptions) {
    this.puller = new ImagePuller(opts.engine, opts.pullBackoffMs ?? 5000);
    this.now = opts.now ?? (() => new Date());
    this.startCpuMillis = opts.startCpuMillis ?? 250;
    this.health = new EngineHealth(opts.engine, opts.engineRetryMs ?? 2000);
    this.sampled = new EngineUsage(opts.engine, opts.statsIntervalMs ?? 5000);
  }

  /** Starts an allocation's container; false when this executor already knows the allocation. */
  start(spec: ContainerRunSpec): boolean {
    if (this.runs.has(spec.allocationId)) return false;
    const run = this.open(
      spec.allocationId,
      spec.workloadId,
      spec.stopGraceSeconds,
      spec.limits?.memoryBytes ?? 0,
    );
    void this.launch(run, spec);
    return true;
  }

  /**
   * Takes over this node's containers left by a previous life of the agent: those in `unreported` (allocations it
   * had not reported ended) are followed if they run, and reported now if they ended meanwhile; live containers of
   * any other allocation are removed (nothing the hub does not expect keeps running). Returns the allocations
   * adopted.
   */
  async adopt(unreported: ReadonlySet<string>): Promise<{ allocationId: string; workloadId: string }[]> {
    const found = await this.opts.engine.list([`${LABELS.node}=${this.opts.nodeId()}`]);
    const adopted: { allocationId: string; workloadId: string }[] = [];
    for (const status of found) {
      const allocationId = status.labels[LABELS.allocation];
      if (!allocationId || this.runs.has(allocationId)) continue;
      if (!unreported.has(allocationId)) {
        // Ended and reported, or given up (lost) while the agent was away: a live one would run beside its
        // replacement, so it goes.
        if (status.live) await this.opts.engine.remove(status.id).catch(() => undefined);
        continue;
      }
      const grace = Number(status.labels[LABELS.grace] ?? 10);
      const run = this.open(allocationId, status.labels[LABELS.workload] ?? '', grace, 0);
      run.id = status.id;
      run.started = true;
      adopted.push({ allocationId, workloadId: run.workloadId });
      const cpuMillis = Number(status.labels[LABELS.cpu] ?? 0);
      // the agent may have died between the start and the container's own quota: set again (or it goes)
      const limited = status.live && cpuMillis > 0 ? this.limitCpu(run, cpuMillis) : Promise.resolve();
      void limited
        .then(() => this.watch(run))
        .catch((error: Error) => this.finish(run, undefined, error.message));
    }
    return adopted;
  }

  /** SIGTERM to the container, SIGKILL after the grace period; resolves once it ended. */
  stop(allocationId: string, reason: string): Promise<void> {
    const run = this.runs.get(allocationId);
    if (!run || run.finished) return Promise.resolve();
    if (!run.stopping) {
      const stopping = { reason, endedBy: 'SIGTERM' as 'SIGTERM' | 'SIGKILL' };
      run.stopping = stopping;
      if (run.id) void this.signal(run, 'SIGTERM');
      const escalate = (): void => {
        if (run.exited) return; // it ended within the grace: SIGTERM ended it, whatever the drain takes
        stopping.endedBy = 'SIGKILL';
        if (run.id) void this.signal(run, 'SIGKILL');
      };
      run.timers.push(setTimeout(escalate, Math.max(0, run.graceSeconds * 1000)));
    }
    return run.done;
  }

  /** Runs a command inside the allocation's running container (exec probes); null when it could not. */
  async exec(allocationId: string, command: readonly string[], timeoutMs: number): Promise<number | null> {
    const run = this.runs.get(allocationId);
    if (!run?.id || run.finished) return null;
    return this.opts.engine.exec(run.id, command, timeoutMs).catch(() => null);
  }

  async stopAll(reason: string): Promise<void> {
    await Promise.all(this.running().map((id) => this.stop(id, reason)));
  }

  running(): string[] {
    return [...this.runs.values()].filter((r) => !r.finished).map((r) => r.allocationId);
  }

  /** What a running container used so far, from its allocation's cgroup, else from the engine's stats. */
  usage(allocationId: string): MeasuredUsage | undefined {
    const run = this.runs.get(allocationId);
    if (!run || run.finished || !run.started) return undefined;
    const found = this.cgroupUsage(allocationId) ?? this.sampled.get(allocationId);
    return found ? measured(found) : undefined;
  }

  private cgroupUsage(allocationId: string): CgroupUsage | undefined {
    const parent = this.opts.policy.cgroupParent;
    if (!parent || this.opts.cgroups === 'none') return undefined;
    return cgroupUsage(this.opts.cgroups, `${parent}/${allocationId}`);
  }

  knows(allocationId: string): boolean {
    return this.runs.has(allocationId);
  }

  readNewOutput(allocationId: string, maxBytes = 64 * 1024): OutputChunk[] {
    const run = this.runs.get(allocationId);
    if (!run) return [];
    const out: OutputChunk[] = [];
    for (const stream of STREAMS) {
      const chunk = run.logs[stream].readNew(maxBytes, run.finished);
      if (chunk) out.push({ stream, ...chunk });
    }
    return out;
  }

  forget(allocationId: string): boolean {
    const run = this.runs.get(allocationId);
    return run?.finished === true && this.runs.delete(allocationId);
  }

  private open(allocationId: string, workloadId: string, graceSeconds: number, memoryBytes: number): Run {
    if (!/^[0-9a-f-]{36}$/.test(allocationId)) throw new Error(`invalid allocation id '${allocationId}'`);
    const dir = join(this.opts.baseDir, allocationId);
    makeDir(dir);
    let resolveDone = (): void => undefined;
    const done = new Promise<void>((r) => (resolveDone = r));
    const run: Run = {
      allocationId,
      workloadId,
      graceSeconds,
      memoryBytes,
      logs: {
        stdout: new RotatingLog(join(dir, 'stdout.log'), 10 * 1024 * 1024, 3),
        stderr: new RotatingLog(join(dir, 'stderr.log'), 10 * 1024 * 1024, 3),
      },
      started: false,
      finished: false,
      timers: [],
      done,
      resolveDone,
    };
    this.runs.set(allocationId, run);
    return run;
  }

  private async launch(run: Run, spec: ContainerRunSpec): Promise<void> {
    const engine = this.opts.engine;
    try {
      const request = containerRequest(spec, this.opts.policy, this.opts.nodeId());
      await this.puller.ensure(spec.container.image, spec.container.pullPolicy);
      if (run.stopping) return this.finish(run, undefined);
      const startCpu = startingCpuMillis(request.cpuMillis, this.startCpuMillis);
      run.id = await engine
        .create({ ...request, cpuMillis: startCpu })
        .catch((error) => this.existing(error, run.allocationId));
      if (run.stopping) return this.finish(run, await this.removeUnstarted(run.id));
      await engine.start(run.id);
      if (startCpu !== request.cpuMillis) await this.limitCpu(run, request.cpuMillis);
      await this.watch(run);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.finish(run, undefined, message);
    }
  }

  /**
   * Lowers a started container's CPU quota to its own; when the engine cannot, the container is removed (it must
   * not run over its limit) and later containers start with their own quota.
   */
  private async limitCpu(run: Run, cpuMillis: number): Promise<void> {
    try {
      await this.opts.engine.limitCpu(run.id as string, cpuMillis);
    } catch (error) {
      this.startCpuMillis = 0;
      await this.opts.engine.remove(run.id as string).catch(() => undefined);
      throw error;
    }
  }

  /** A create that conflicts with this allocation's own container (created before a crash) takes that one. */
  private async existing(error: unknown, allocationId: string): Promise<string> {
    const mine = await this.opts.engine.list([`${LABELS.allocation}=${allocationId}`]).catch(() => []);
    const found = mine.find((c) => c.name === containerName(allocationId));
    if (!found) throw error;
    return found.id;
  }

  private async removeUnstarted(id: string): Promise<undefined> {
    await this.opts.engine.remove(id).catch(() => undefined);
    return undefined;
  }

  /** Reports the start, follows the output, waits for the end and reports it. */
  private async watch(run: Run): Promise<void> {
    const engine = this.opts.engine;
    const id = run.id as string;
    const status = await engine.inspect(id);
    if (!this.cgroupUsage(run.allocationId)) this.sampled.track(run.allocationId, id);
    if (!run.started) {
      run.started = true;
      this.emit({
        kind: 'started',
        allocationId: run.allocationId,
        pid: status.pid,
        at: this.at(),
        ...(status.ports.length > 0 ? { ports: [...status.ports] } : {}),
      });
    }
    if (run.stopping) void this.signal(run, run.stopping.endedBy);
    let seq = 0;
    const output = engine
      .follow(id, {
        stdout: (chunk) => run.logs.stdout.append(chunk, seq++),
        stderr: (chunk) => run.logs.stderr.append(chunk, seq++),
      })
      .catch(() => undefined); // the output ends with the container, or with the engine
    try {
      const gone = await Promise.race([
        engine.wait(id).then(() => undefined),
        this.health.stoppedAnswering(() => this.running().length > 0),
      ]);
      if (gone) return this.lose(run, gone);
      run.exited = true;
    } catch (error) {
      if (error instanceof EngineError && error.code === 'ENGINE.UNAVAILABLE') return this.lose(run, error);
      throw error;
    }
    await Promise.race([output, new Promise((r) => setTimeout(r, DRAIN_MS))]);
    this.finish(run, await engine.inspect(id));
  }

  /**
   * The engine stopped answering while the container ran: the allocation is reported lost (the hub reschedules it
   * by its policy) and, once the engine answers again, its container is removed, so it never runs beside its
   * replacement.
   */
  private lose(run: Run, error: EngineError): void {
    if (run.finished) return;
    run.finished = true;
    run.lost = true;
    this.sampled.forget(run.allocationId);
    run.timers.forEach((t) => clearTimeout(t));
    STREAMS.forEach((s) => run.logs[s].close());
    this.emit({ kind: 'lost', allocationId: run.allocationId, reason: error.message, at: this.at() });
    run.resolveDone();
    void this.reclaimLost();
  }

  /** Waits for the engine, then removes the containers of allocations reported lost. */
  private async reclaimLost(): Promise<void> {
    if (this.reclaiming) return;
    this.reclaiming = true;
    try {
      await this.health.answering();
      for (const run of [...this.runs.values()].filter((r) => r.lost && r.id)) {
        await this.opts.engine.remove(run.id as string).catch(() => undefined);
        run.lost = false;
      }
    } finally {
      this.reclaiming = false;
    }
  }

  private async signal(run: Run, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    await this.opts.engine.kill(run.id as string, signal).catch(() => undefined);
  }

  private finish(run: Run, status: ContainerStatus | undefined, error?: string): void {
    if (run.finished) return;
    run.finished = true;
    run.timers.forEach((t) => clearTimeout(t));
    run.timers = [];
    STREAMS.forEach((s) => run.logs[s].close());
    this.emit(this.ending(run, status, error));
    run.resolveDone();
    void this.cleanUp(run);
  }

  private ending(run: Run, status: ContainerStatus | undefined, error?: string): Ending {
    const base = { allocationId: run.allocationId, at: this.at() };
    const sampled = this.sampled.forget(run.allocationId);
    return containerEnding(base, run, status, this.cgroupUsage(run.allocationId) ?? sampled, error);
  }

  /** Removes the allocation's cgroup and this workload's finished containers beyond the last few. */
  private async cleanUp(run: Run): Promise<void> {
    const cgroup = this.opts.policy.cgroupParent;
    try {
      const mine = await this.opts.engine.list([
        `${LABELS.workload}=${run.workloadId}`,
        `${LABELS.node}=${this.opts.nodeId()}`,
      ]);
      const ended = mine.filter((c) => !c.live).sort((a, b) => b.finishedAt.localeCompare(a.finishedAt));
      for (const old of ended.slice(Math.max(0, this.opts.keepFinished)))
        await this.opts.engine.remove(old.id);
    } catch {
      // the engine is away: the next allocation's clean-up retries
    }
    if (cgroup) removeCgroup(this.opts.cgroups, `${cgroup}/${run.allocationId}`);
  }

  private emit(e: ExecutionEvent): void {
    try {
      this.opts.onEvent(e);
    } catch (err) {
      process.emitWarning(`ContainerExecutor onEvent handler threw: ${String(err)}`);
    }
  }

  private at(): string {
    return this.now().toISOString();
  }
}
