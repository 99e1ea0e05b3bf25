import type { AllocationUsage } from '@hcn/contracts';
import { DeviceRuntime, DeviceRuntimeError } from './runtime/device-runtime';
import { placementDevices } from './runtime/placement-devices';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionEvent, ProcessExecutor } from './executors/process.executor';
import type { Executor } from './executors/execution.types';
import { ContainerExecutor } from './containers/container.executor';
import { GUARD_IN_CONTAINER } from './containers/container-request';
import { mayBeOwnGroup, stampOf } from './executors/process-stamp';
import { writeFileAtomically } from './atomic-file';
import { ServiceAllocation, ServiceRuntime } from './services/service-runtime';
import type {
  DeviceSetup,
  Owned,
  ReportBody,
  RunCommand,
  StopAllocationCommand,
} from './workload-runner.types';
import { containerPortEnvironment, portEnvironment } from './services/service-ports';
import { ModelLauncher } from './models/model-launcher';
import type { BindMount } from './containers/engine';

export type { ContainerRuntimeOptions, DeviceSetup, ReportBody } from './workload-runner.types';

/**
 * Runs the allocations the hub places on this node with the process executor, reports their lifecycle and ships
 * their new output as reports (through the agent's durable outbox), and after a crash of the agent reports what
 * it had been running as failed (and kills what is left of it).
 */
export class WorkloadRunner {
  private readonly executor: ProcessExecutor;
  private readonly containers?: ContainerExecutor;
  private readonly owned = new Map<string, Owned>();
  private readonly statePath: string;
  private readonly services: ServiceRuntime;
  private readonly models: ModelLauncher;

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
      sandbox: devices.sandbox,
    });
    this.services = new ServiceRuntime({
      readiness: (allocationId, ready, detail) => this.readiness(allocationId, ready, detail),
      stop: (allocationId, reason) => void this.executorOf(allocationId)?.stop(allocationId, reason),
      exec: (allocationId, command, timeoutMs) =>
        this.executorOf(allocationId)?.exec(allocationId, command, timeoutMs) ?? Promise.resolve(null),
    });
    this.models = new ModelLauncher({
      ...devices.models,
      baseDir: join(dataDir, 'allocations'),
      reservePorts: (allocationId, service) => this.services.reservePorts(allocationId, service),
    });
    if (devices.containers)
      this.containers = new ContainerExecutor({
        ...devices.containers,
        nodeId,
        baseDir: join(dataDir, 'allocations'),
        onEvent: (e) => this.onExecution(e),
      });
  }

  /** Measured usage of every running allocation that is measured (heartbeats carry it). */
  usage(): AllocationUsage[] {
    return this.executors().flatMap((executor) =>
      executor.running().flatMap((allocationId) => {
        const usage = executor.usage(allocationId);
        return usage ? [{ allocationId, ...usage }] : [];
      }),
    );
  }

  /** Allocations running now (heartbeats carry them). */
  running(): string[] {
    return this.executors().flatMap((e) => e.running());
  }

  private executors(): Executor[] {
    return this.containers ? [this.executor, this.containers] : [this.executor];
  }

  private executorOf(allocationId: string): Executor | undefined {
    return this.executors().find((e) => e.knows(allocationId));
  }

  /**
   * Accounts for what a previous life of this agent left: its containers are re-adopted (running ones followed,
   * ended ones reported once); its processes, which died with it or cannot be followed, are killed and reported
   * failed, and so are containers that vanished.
   */
  async recover(): Promise<void> {
    const left = this.load();
    const containers = Object.keys(left).filter((id) => left[id].runtime === 'container');
    const adopted = await this.adoptContainers(new Set(containers));
    if (adopted === undefined) containers.forEach((id) => delete left[id]); // the engine is away: nothing to say yet
    for (const { allocationId, workloadId } of adopted ?? []) {
      const service = left[allocationId]?.service;
      this.owned.set(allocationId, { workloadId, runtime: 'container', ...(service ? { service } : {}) });
      if (service) this.services.watch(allocationId, service);
    }
    for (const [allocationId, owned] of Object.entries(left)) {
      if (this.owned.has(allocationId)) continue;
      if (owned.runtime !== 'container') await this.reap(allocationId, owned);
      const reason =
        owned.runtime === 'container'
          ? 'the container was gone when the agent restarted'
          : 'the agent restarted while the allocation ran';
      this.failed(allocationId, owned.workloadId, reason);
    }
    this.save();
  }

  /** What the previous life of this agent ran (nothing when it left no state file). */
  private load(): Record<string, Owned> {
    if (!existsSync(this.statePath)) return {};
    return JSON.parse(readFileSync(this.statePath, 'utf8')) as Record<string, Owned>;
  }

  /** Kills what is left of a process allocation of a previous life: its process group, then its cgroup. */
  private async reap(allocationId: string, owned: Owned): Promise<void> {
    if (owned.pid && mayBeOwnGroup(owned.pid, owned.stamp)) killGroup(owned.pid);
    await this.devices.sandbox?.reap(allocationId);
  }

  /** The containers re-adopted; undefined when the engine did not answer. */
  private async adoptContainers(unreported: ReadonlySet<string>) {
    if (!this.containers) return [];
    try {
      return await this.containers.adopt(unreported);
    } catch {
      return undefined;
    }
  }

  private failed(allocationId: string, workloadId: string, reason: string): void {
    this.report({
      kind: 'allocation',
      workloadId,
      allocationId,
      status: 'failed',
      reason,
      at: new Date().toISOString(),
    });
  }

  /** Starts a placed allocation (at most once per allocation id); a model's once its server is known (`mounts`). */
  run(command: RunCommand, mounts?: readonly BindMount[]): void {
    const p = command.placement;
    if (p.model) {
      if (this.owned.has(p.allocationId) || this.executorOf(p.allocationId)) return;
      const fail = (reason: string) => {
        this.services.ended(p.allocationId); // a process model's port goes back
        this.failed(p.allocationId, p.workloadId, reason);
      };
      return this.models.start(command, (ready) => this.run(ready.command, ready.mounts), fail);
    }
    if (p.container) return this.runContainer(command, mounts);
    if (!p.service) return this.runProcess(command);
    if (this.owned.has(p.allocationId) || this.executor.knows(p.allocationId)) return;
    this.owned.set(p.allocationId, { workloadId: p.workloadId });
    // a process service: its host ports first
    this.services.startProcess(
      p.allocationId,
      p.service,
      (service) => this.runProcess(command, service),
      (reason) => {
        this.owned.delete(p.allocationId);
        this.failed(p.allocationId, p.workloadId, reason);
      },
    );
  }

  /** Starts a process placement (a service's with its ports in the environment). */
  private runProcess(command: RunCommand, service?: ServiceAllocation): void {
    const p = command.placement;
    this.owned.set(p.allocationId, { workloadId: p.workloadId, ...(service ? { service } : {}) });
    const runtime = this.deviceRuntimeOf(command, this.devices.vramGuardPath);
    if (runtime === null) return;
    const ports = (service?.ports ?? []).flatMap((q) => (q.name ? [{ name: q.name, port: q.hostPort }] : []));
    const env = { ...p.env, ...runtime?.env, ...(service ? portEnvironment(ports) : {}) };
    const started = this.executor.start({
      limits: p.limits,
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

  /** Starts a container placement: the devices' nodes, driver mounts and guard go into the container. */
  private runContainer(command: RunCommand, mounts?: readonly BindMount[]): void {
    const p = command.placement;
    const containers = this.containers;
    const container = p.container;
    if (!container) return;
    if (!containers) {
      this.failed(p.allocationId, p.workloadId, 'RUNTIME.UNAVAILABLE: this node has no container engine');
      return;
    }
    const runtime = this.deviceRuntimeOf(command, GUARD_IN_CONTAINER);
    if (runtime === null) return;
    const service = p.service ? { service: { service: p.service, runtime: 'container' as const } } : {};
    this.owned.set(p.allocationId, { workloadId: p.workloadId, runtime: 'container', ...service });
    const started = containers.start({
      allocationId: p.allocationId,
      workloadId: p.workloadId,
      instanceId: `${p.workloadId}/${p.instance}`,
      nodeId: this.nodeId(),
      command: p.command,
      args: p.args,
      env: { ...p.env, ...runtime?.env, ...(p.service ? containerPortEnvironment(p.service) : {}) },
      workingDir: p.workingDir,
      stopGraceSeconds: p.stopGraceSeconds,
      limits: p.limits,
      container,
      ...(mounts?.length ? { mounts } : {}),
      ...(runtime
        ? {
            devices: {
              deviceNodes: runtime.deviceNodes,
              mounts: runtime.mounts,
              ...(p.devices?.sliceMemoryBytes !== undefined ? { guard: this.devices.vramGuardPath } : {}),
            },
          }
        : {}),
    });
    if (started) this.save();
  }

  /**
   * What the placement's devices add (the guard preloaded from `guardPath`, where the workload sees it); undefined
   * without devices, null when refused (reported failed).
   */
  private deviceRuntimeOf(
    command: RunCommand,
    guardPath: string | undefined,
  ): DeviceRuntime | undefined | null {
    const p = command.placement;
    try {
      return placementDevices(p, this.devices.devices(), this.devices.vramGuardPath, guardPath);
    } catch (error) {
      if (!(error instanceof DeviceRuntimeError)) throw error;
      this.owned.delete(p.allocationId);
      this.services.ended(p.allocationId); // a process service's ports go back
      this.failed(p.allocationId, p.workloadId, error.message);
      return null;
    }
  }

  /** Stops an allocation; one this agent does not run is reported stopped at once (nothing to stop). */
  async stop(command: StopAllocationCommand): Promise<void> {
    if (await this.models.cancel(command.allocationId)) this.services.ended(command.allocationId);
    await this.services.settled(command.allocationId);
    this.services.unwatch(command.allocationId);
    const executor = this.executorOf(command.allocationId);
    if (executor?.running().includes(command.allocationId))
      return executor.stop(command.allocationId, command.reason);
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
  async stopAll(reason: string): Promise<void> {
    await this.models.cancelAll();
    this.services.stopAll();
    await Promise.all(this.executors().map((e) => e.stopAll(reason)));
  }

  /** Queues the new output of every allocation as logs reports. */
  shipLogs(): void {
    for (const [allocationId, owned] of this.owned) {
      const executor = this.executorOf(allocationId);
      const chunks = executor?.readNewOutput(allocationId) ?? [];
      if (chunks.length > 0)
        this.report({ kind: 'logs', workloadId: owned.workloadId, allocationId, chunks });
      if (!executor?.running().includes(allocationId) && chunks.length === 0) {
        executor?.forget(allocationId);
        this.owned.delete(allocationId);
      }
    }
  }

  private onExecution(e: ExecutionEvent): void {
    const owned = this.owned.get(e.allocationId);
    if (!owned) return;
    const base = {
      kind: 'allocation' as const,
      workloadId: owned.workloadId,
      allocationId: e.allocationId,
      at: e.at,
      ...((e.kind === 'completed' || e.kind === 'failed' || e.kind === 'stopped') && e.usage
        ? { usage: e.usage }
        : {}),
    };
    if (e.kind === 'started')
      Object.assign(owned, { pid: e.pid, stamp: stampOf(e.pid) }); // not reaped yet
    else this.shipFinalOutput(e.allocationId, owned);
    const livenessFailure = e.kind === 'started' ? undefined : this.services.ended(e.allocationId);
    switch (e.kind) {
      case 'started': {
        // a service's ports are named, and its probes begin (their first check comes after this report)
        const ports = owned.service ? this.services.started(e.allocationId, owned.service, e.ports) : e.ports;
        this.report({ ...base, status: 'started', pid: e.pid, ...(ports?.length ? { ports } : {}) });
        break;
      }
      case 'completed':
        this.report({ ...base, status: 'completed', exitCode: e.exitCode });
        break;
      case 'lost':
        this.report({ ...base, status: 'lost', reason: e.reason });
        break;
      case 'failed':
        this.report({ ...base, status: 'failed', reason: e.reason, exitCode: e.exitCode, signal: e.signal });
        break;
      case 'stopped':
        if (livenessFailure) {
          // the agent stopped it: its liveness probe failed
          const { exitCode, signal } = e;
          this.report({ ...base, status: 'failed', reason: livenessFailure, exitCode, signal });
          break;
        }
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

  /** Reports a service allocation's readiness turn (`reason`: the last check's finding). */
  private readiness(allocationId: string, ready: boolean, reason: string): void {
    const workloadId = this.owned.get(allocationId)?.workloadId;
    const status = ready ? ('ready' as const) : ('not-ready' as const);
    const at = new Date().toISOString();
    if (workloadId) this.report({ kind: 'allocation', workloadId, allocationId, status, reason, at });
  }

  private shipFinalOutput(allocationId: string, owned: Owned): void {
    const chunks = this.executorOf(allocationId)?.readNewOutput(allocationId) ?? [];
    if (chunks.length > 0) this.report({ kind: 'logs', workloadId: owned.workloadId, allocationId, chunks });
  }

  private save(): void {
    const running = new Set(this.running());
    const state = Object.fromEntries([...this.owned].filter(([id]) => running.has(id)));
    writeFileAtomically(this.statePath, JSON.stringify(state));
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
