import type { CgroupUsage } from '../isolation/cgroups';
import type { ContainerEngine } from './engine';

/**
 * Usage of running containers from the engine's stats, for an agent that cannot read their cgroups (no cgroup
 * parent it manages): sampled in the background while any container is tracked; the peak is the highest memory
 * sample, and OOM kills are left to the engine's flag.
 */
export class EngineUsage {
  private readonly tracked = new Map<string, { containerId: string; usage?: CgroupUsage }>();
  private timer: NodeJS.Timeout | undefined;
  private sampling = false;

  constructor(
    private readonly engine: ContainerEngine,
    private readonly intervalMs: number,
  ) {}

  /** Starts sampling an allocation's container (its first figures come one interval later). */
  track(allocationId: string, containerId: string): void {
    this.tracked.set(allocationId, { containerId });
    this.timer ??= setInterval(() => void this.sample(), this.intervalMs).unref();
  }

  /** The latest figures of an allocation, if sampled. */
  get(allocationId: string): CgroupUsage | undefined {
    return this.tracked.get(allocationId)?.usage;
  }

  /** Stops sampling an allocation; returns its last figures. */
  forget(allocationId: string): CgroupUsage | undefined {
    const last = this.get(allocationId);
    this.tracked.delete(allocationId);
    if (this.tracked.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    return last;
  }

  private async sample(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    try {
      for (const entry of [...this.tracked.values()]) {
        const stats = await this.engine.stats(entry.containerId).catch(() => undefined);
        if (!stats || stats.cpuSeconds <= 0) continue; // ended, or the engine is away
        entry.usage = {
          cpuSeconds: stats.cpuSeconds,
          memoryBytes: stats.memoryBytes,
          memoryPeakBytes: Math.max(entry.usage?.memoryPeakBytes ?? 0, stats.memoryBytes),
          oomKills: 0,
        };
      }
    } finally {
      this.sampling = false;
    }
  }
}
