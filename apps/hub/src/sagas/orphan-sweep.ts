import { quotaStream, workloadStream } from '@hcn/contracts';
import type { CommandContext } from '@hcn/commands';
import type { EventStore } from '@hcn/eventstore';
import type { HotStreams } from '../common/hot-streams';
import type { ClusterView } from '../scheduling/cluster-view';
import type { PlacementService } from '../scheduling/placement.service';
import type { Clock } from '../tokens';
import { sagaContext } from './saga-facts';
import { Logger } from '@nestjs/common';

const logger = new Logger('workload-saga');

/** Why the orphan sweep gives something back. */
const ORPHAN_REASON = 'its workload was never recorded';

/** Quota holds whose workload the read models do not know (the sweep checks each against the log). */
export type UnrecordedHolds = () => Promise<ReadonlyArray<{ workloadId: string; namespace: string }>>;

/**
 * Gives back node reservations and quota holds whose workload never came to be: unknown to the saga at two
 * sweeps in a row and without a stream (a hub died after holding or reserving, before the submission's append).
 */
export class OrphanSweep {
  /** What held something for an unknown workload at the last sweep. */
  private suspects = new Set<string>();

  constructor(
    private readonly store: EventStore,
    private readonly view: ClusterView,
    private readonly placement: PlacementService,
    private readonly hot: HotStreams,
    private readonly clock: Clock,
    private readonly unrecordedHolds?: UnrecordedHolds,
  ) {}

  /** One sweep; `known` tells the workloads the saga keeps (never orphans). */
  async sweep(known: (workloadId: string) => boolean): Promise<void> {
    const suspects = new Set<string>();
    for (const { allocationId, workloadId, nodeIds } of this.view.heldReservations()) {
      if (known(workloadId)) continue;
      await this.giveBackIfOrphaned(suspects, `reservation:${allocationId}`, workloadId, async (context) => {
        for (const nodeId of nodeIds)
          await this.placement.releaseOn(nodeId, allocationId, ORPHAN_REASON, context);
      });
    }
    const holds = await this.unrecordedHolds?.().catch((error: Error) => {
      logger.error(`quota holds: ${error.message}`);
      return [];
    });
    for (const { workloadId, namespace } of holds ?? []) {
      if (known(workloadId)) continue;
      await this.giveBackIfOrphaned(suspects, `hold:${workloadId}`, workloadId, async (context) => {
        const release = { type: 'Release' as const, namespace, workloadId, reason: ORPHAN_REASON };
        await this.hot.quotas.handle(quotaStream(namespace), release, context);
      });
    }
    this.suspects = suspects;
  }

  /**
   * Gives back what `key` holds when it was a suspect at the last sweep too and its workload has no stream;
   * otherwise (first sighting, or a failure) it stays a suspect for the next sweep.
   */
  private async giveBackIfOrphaned(
    suspects: Set<string>,
    key: string,
    workloadId: string,
    giveBack: (context: CommandContext) => Promise<void>,
  ): Promise<void> {
    if (!this.suspects.has(key)) return void suspects.add(key);
    try {
      const recorded = await this.store.readStream(workloadStream(workloadId), { maxCount: 1 });
      if (recorded.length === 0) await giveBack(sagaContext(this.clock, `orphan:${key}`, workloadId));
    } catch (error) {
      logger.error(`orphan ${key}: ${(error as Error).message}`);
      suspects.add(key);
    }
  }
}
