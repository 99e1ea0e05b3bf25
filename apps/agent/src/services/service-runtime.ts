import { LIVENESS_FAILED, type Probe, type PublishedPort, type ServicePlacement } from '@hcn/contracts';
import { checkOnce } from './probe-check';
import { InitialVerdict, Prober } from './prober';
import { hostPortOf, namePublished, pickHostPorts } from './service-ports';

/** What the service runtime asks of the runner. */
export interface ServiceHooks {
  /** An allocation's readiness turned: report it (`detail`: the last check's finding). */
  readiness(allocationId: string, ready: boolean, detail: string): void;
  /** An allocation's liveness probe failed: stop it (the runner reports it failed with `reason`). */
  stop(allocationId: string, reason: string): void;
  /** Runs a command inside an allocation (exec probes); exit code, null when it did not end in time. */
  exec(allocationId: string, command: readonly string[], timeoutMs: number): Promise<number | null>;
}

/** A service allocation as the runner keeps it (on disk too: a restarted agent probes re-adopted containers). */
export interface ServiceAllocation {
  readonly service: ServicePlacement;
  readonly runtime: 'process' | 'container';
  /** Its named, published ports: a process service's once picked, a container's once started. */
  ports?: PublishedPort[];
}

/**
 * Runs what makes an allocation a service on this node: host ports for process services (held while they run),
 * the named ports reported when it started, and its probes: readiness turns are reported, a liveness failure stops
 * the allocation, which the runner then reports failed with `PROBE.LIVENESS_FAILED: ...` (its restart policy
 * decides what follows).
 */
export class ServiceRuntime {
  private readonly probers = new Map<string, Prober[]>();
  private readonly held = new Map<string, number[]>();
  private readonly livenessFailures = new Map<string, string>();
  /** Process services whose host ports are being picked. */
  private readonly starting = new Map<string, Promise<void>>();

  constructor(private readonly hooks: ServiceHooks) {}

  /**
   * Starts a process service: picks its host ports, then `launch`es it with them; `fail`s it (with a reason) when no
   * ports could be had. A stop waits for this (`settled`).
   */
  startProcess(
    allocationId: string,
    service: ServicePlacement,
    launch: (allocation: ServiceAllocation) => void,
    fail: (reason: string) => void,
  ): void {
    const start = this.reservePorts(allocationId, service).then(
      (ports) => launch({ service, runtime: 'process', ports }),
      (error: Error) => fail(`SERVICE.PORTS_UNAVAILABLE: ${error.message}`),
    );
    this.starting.set(
      allocationId,
      start.finally(() => this.starting.delete(allocationId)),
    );
  }

  /** Resolves once the allocation's start (its ports being picked) is over, at once when none is under way. */
  async settled(allocationId: string): Promise<void> {
    await this.starting.get(allocationId);
  }

  /** Host ports for a process service's named ports, held until it ended. */
  async reservePorts(allocationId: string, service: ServicePlacement): Promise<PublishedPort[]> {
    const ports = await pickHostPorts(service.ports, new Set([...this.held.values()].flat()));
    this.held.set(
      allocationId,
      ports.map((p) => p.hostPort),
    );
    return ports;
  }

  /** The allocation started: its named ports (to report), and its probes begin. */
  started(
    allocationId: string,
    allocation: ServiceAllocation,
    enginePorts?: readonly PublishedPort[],
  ): PublishedPort[] {
    allocation.ports =
      allocation.runtime === 'container'
        ? namePublished(enginePorts ?? [], allocation.service)
        : (allocation.ports ?? []);
    this.watch(allocationId, allocation, 'failing'); // a new allocation starts not ready
    return allocation.ports;
  }

  /**
   * Probes a running allocation: after its start (not ready until its probe passes), or after a restarted agent
   * re-adopted it (`unknown`: the first verdict is reported, whatever the hub last heard).
   */
  watch(allocationId: string, allocation: ServiceAllocation, readiness: InitialVerdict = 'unknown'): void {
    this.unwatch(allocationId);
    const { readinessProbe, livenessProbe } = allocation.service;
    const check = (probe: Probe) => () => {
      const port = probe.http?.port ?? probe.tcp?.port;
      const hostPort =
        port === undefined ? undefined : hostPortOf(port, allocation.ports ?? [], allocation.runtime);
      const exec = (command: readonly string[], timeoutMs: number) =>
        this.hooks.exec(allocationId, command, timeoutMs);
      return checkOnce(probe, { hostPort, exec });
    };
    const probers: Prober[] = [];
    if (readinessProbe)
      probers.push(
        new Prober(readinessProbe, check(readinessProbe), readiness, (verdict, detail) =>
          this.hooks.readiness(allocationId, verdict === 'passing', detail),
        ),
      );
    if (livenessProbe)
      probers.push(
        new Prober(livenessProbe, check(livenessProbe), 'passing', (verdict, detail) => {
          if (verdict === 'failing') this.livenessFailed(allocationId, detail);
        }),
      );
    probers.forEach((p) => p.start());
    if (probers.length > 0) this.probers.set(allocationId, probers);
  }

  /** Stops probing an allocation (it is being stopped). */
  unwatch(allocationId: string): void {
    this.probers.get(allocationId)?.forEach((p) => p.stop());
    this.probers.delete(allocationId);
  }

  /** The allocation ended: its probes stop, its ports go back; returns the liveness failure that ended it, if any. */
  ended(allocationId: string): string | undefined {
    this.unwatch(allocationId);
    this.held.delete(allocationId);
    const failure = this.livenessFailures.get(allocationId);
    this.livenessFailures.delete(allocationId);
    return failure;
  }

  /** Stops every probe (agent shutdown). */
  stopAll(): void {
    for (const allocationId of [...this.probers.keys()]) this.unwatch(allocationId);
  }

  /** Allocations probed now (tests). */
  get watching(): string[] {
    return [...this.probers.keys()];
  }

  private livenessFailed(allocationId: string, detail: string): void {
    const reason = `${LIVENESS_FAILED}: ${detail}`;
    this.livenessFailures.set(allocationId, reason);
    this.unwatch(allocationId);
    this.hooks.stop(allocationId, reason);
  }
}
