import type { AcceleratorDevice, AgentCommand, AgentReport } from '@hcn/contracts';
import { DeviceRuntimeError, deviceRuntime } from './runtime/device-runtime';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionEvent, ProcessExecutor } from './executors/process.executor';

type RunCommand = Extract<AgentCommand, { kind: 'run' }>;
type StopAllocationCommand = Extract<AgentCommand, { kind: 'stop-allocation' }>;
/** A report body without the fields the agent adds (node, credential, sequence, send time). */
export type ReportBody =
  | Omit<
      Extract<AgentReport, { kind: 'allocation' }>,
      'nodeId' | 'domainId' | 'credential' | 'seq' | 'sentAt'
    >
  | Omit<Extract<AgentReport, { kind: 'logs' }>, 'nodeId' | 'domainId' | 'credential' | 'seq' | 'sentAt'>;

/** Where an allocation this agent runs belongs (kept on disk so a restarted agent can account for it). */
interface Owned {
  workloadId: string;
  pid?: number;
}

/** The node's devices (as registered) and where the vram-guard library is, for device placements. */
export interface DeviceSetup {
  devices(): readonly AcceleratorDevice[];
  readonly vramGuardPath?: string;
}

/**
 * Runs the allocations the hub places on this node with the process executor, reports their lifecycle and ships
 * their new output as reports (through the agent's durable outbox), and after a crash of the agent reports what
 * it had been running as failed (and kills what is left of it).
 */
export class WorkloadRunner {
  private readonly executor: ProcessExecutor;
  private readonly owned = new Map<string, Owned>();
  private readonly statePath: string;

  constructor(
    dataDir: string,
    private readonly nodeId: () => string,
    private readonly report: (body: ReportBody) => void,
    private readonly devices: DeviceSetup = { devices: () => [] },
  ) {
    this.statePath = join(dataDir, 'allocations.json');
    this.executor = new ProcessExecutor({
      baseDir: join(dataDir, 'allocations'),
      onEvent: (e) => this.onExecution(e),
    });
  }

  /** Allocations running now (heartbeats carry them). */
  running(): string[] {
    return this.executor.running();
  }

  /** Reports allocations a previous life of this agent left behind as failed, killing their process groups. */
  recover(): void {
    if (!existsSync(this.statePath)) return;
    const left = JSON.parse(readFileSync(this.statePath, 'utf8')) as Record<string, Owned>;
    for (const [allocationId, owned] of Object.entries(left)) {
      if (owned.pid) killGroup(owned.pid);
      this.report({
        kind: 'allocation',
        workloadId: owned.workloadId,
        allocationId,
        status: 'failed',
        reason: 'the agent restarted while the allocation ran',
        at: new Date().toISOString(),
      });
    }
    this.save();
  }

  /** Starts a placed allocation (at most once per allocation id). */
  run(command: RunCommand): void {
    const p = command.placement;
    this.owned.set(p.allocationId, { workloadId: p.workloadId });
    const env = this.environment(command);
    if (!env) return;
    const started = this.executor.start({
      allocationId: p.allocationId,
      workloadId: p.workloadId,
      instanceId: `${p.workloadId}/${p.instance}`,
      nodeId: this.nodeId(),
      command: p.command,
      args: p.args,
      env,
      workingDir: p.workingDir,
      stopGraceSeconds: p.stopGraceSeconds,
    });
    if (!started) return;
    this.save();
  }

  /** The process environment: the spec's, then the devices' (visible devices, guard); undefined if refused. */
  private environment(command: RunCommand): Record<string, string> | undefined {
    const p = command.placement;
    if (!p.devices) return p.env;
    try {
      const runtime = deviceRuntime(p.devices, this.devices.devices(), {
        vramGuardPath: this.devices.vramGuardPath,
        inheritedPreload: p.env.LD_PRELOAD,
      });
      return { ...p.env, ...runtime.env };
    } catch (error) {
      if (!(error instanceof DeviceRuntimeError)) throw error;
      this.owned.delete(p.allocationId);
      this.report({
        kind: 'allocation',
        workloadId: p.workloadId,
        allocationId: p.allocationId,
        status: 'failed',
        reason: error.message,
        at: new Date().toISOString(),
      });
      return undefined;
    }
  }

  /** Stops an allocation; one this agent does not run is reported stopped at once (nothing to stop). */
  async stop(command: StopAllocationCommand): Promise<void> {
    if (this.executor.running().includes(command.allocationId))
      return this.executor.stop(command.allocationId, command.reason);
    this.report({
      kind: 'allocation',
      workloadId: command.workloadId,
      allocationId: command.allocationId,
      status: 'stopped',
      endedBy: 'not-running',
      reason: command.reason,
      at: new Date().toISOString(),
    });
  }

  /** Stops everything (agent shutdown). */
  stopAll(reason: string): Promise<void> {
    return this.executor.stopAll(reason);
  }

  /** Queues the new output of every allocation as logs reports. */
  shipLogs(): void {
    for (const [allocationId, owned] of this.owned) {
      const chunks = this.executor.readNewOutput(allocationId);
      if (chunks.length > 0)
        this.report({ kind: 'logs', workloadId: owned.workloadId, allocationId, chunks });
      if (this.isFinished(allocationId) && chunks.length === 0) {
        this.executor.forget(allocationId);
        this.owned.delete(allocationId);
      }
    }
  }

  private isFinished(allocationId: string): boolean {
    return !this.executor.running().includes(allocationId);
  }

  private onExecution(e: ExecutionEvent): void {
    const owned = this.owned.get(e.allocationId);
    if (!owned) return;
    const base = {
      kind: 'allocation' as const,
      workloadId: owned.workloadId,
      allocationId: e.allocationId,
      at: e.at,
    };
    if (e.kind === 'started') owned.pid = e.pid;
    else this.shipFinalOutput(e.allocationId, owned);
    switch (e.kind) {
      case 'started':
        this.report({ ...base, status: 'started', pid: e.pid });
        break;
      case 'completed':
        this.report({ ...base, status: 'completed', exitCode: e.exitCode });
        break;
      case 'failed':
        this.report({ ...base, status: 'failed', reason: e.reason, exitCode: e.exitCode, signal: e.signal });
        break;
      case 'stopped':
        this.report({
          ...base,
          status: 'stopped',
          endedBy: e.endedBy,
          exitCode: e.exitCode,
          signal: e.signal,
          reason: e.reason,
        });
        break;
      default: {
        const unreachable: never = e;
        throw new Error(`Unknown execution event ${JSON.stringify(unreachable)}`);
      }
    }
    this.save();
  }

  private shipFinalOutput(allocationId: string, owned: Owned): void {
    const chunks = this.executor.readNewOutput(allocationId);
    if (chunks.length > 0) this.report({ kind: 'logs', workloadId: owned.workloadId, allocationId, chunks });
  }

  private save(): void {
    const running = new Set(this.executor.running());
    const state = Object.fromEntries([...this.owned].filter(([id]) => running.has(id)));
    writeFileSync(this.statePath, JSON.stringify(state));
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
