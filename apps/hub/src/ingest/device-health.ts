import { AcceleratorVendor, nodeStream } from '@hcn/contracts';
import type { HotStreams } from '../common/hot-streams';
import { requestContext } from '@hcn/commands';
import type { Clock } from '../tokens';
import { Logger } from '@nestjs/common';

const logger = new Logger('device-health');

/** The parts of a heartbeat report the watch reads. */
interface HealthReport {
  readonly nodeId: string;
  readonly seq: number;
  readonly devices?: ReadonlyArray<{ vendor?: AcceleratorVendor; index: number; health: number }>;
}

/**
 * Turns the device health that heartbeats carry into node facts the scheduler sees: when a node's newest report
 * shows a device health it has not forwarded yet, the node decider is asked to observe it, and records a
 * NodeDeviceHealthChanged only when a device crosses the threshold or moves by 10 points (so steady health
 * writes nothing). Forwarded values are remembered per node, so unchanged health costs no command at all.
 */
export class DeviceHealthWatch {
  private readonly forwarded = new Map<string, Map<string, number>>();

  constructor(
    private readonly hot: HotStreams,
    private readonly clock: Clock,
  ) {}

  /** Observes the newest report of each node; failures are logged, never block ingestion. */
  async observe(byNode: ReadonlyMap<string, readonly HealthReport[]>): Promise<void> {
    for (const [nodeId, reports] of byNode) {
      const newest = reports.reduce((a, b) => (b.seq > a.seq ? b : a));
      const seen = this.forwarded.get(nodeId) ?? new Map<string, number>();
      const moved = (newest.devices ?? []).flatMap((d) =>
        d.vendor !== undefined && seen.get(`${d.vendor}/${d.index}`) !== d.health
          ? [{ vendor: d.vendor, index: d.index, health: d.health }]
          : [],
      );
      if (moved.length === 0) continue;
      try {
        await this.hot.nodes.handle(
          nodeStream(nodeId),
          { type: 'ObserveDeviceHealth', nodeId, devices: moved },
          requestContext({ kind: 'system', id: 'device-health' }, this.clock()),
        );
        for (const d of moved) seen.set(`${d.vendor}/${d.index}`, d.health);
        this.forwarded.set(nodeId, seen);
      } catch (error) {
        logger.error(`node ${nodeId}: ${(error as Error).message}`);
      }
    }
  }
}
