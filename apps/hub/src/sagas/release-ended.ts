import { RecordedEventOf, quotaStream } from '@hcn/contracts';
import type { WorkloadState } from '@hcn/domain';
import type { HotStreams } from '../common/hot-streams';
import type { ClusterView } from '../scheduling/cluster-view';
import type { PlacementService } from '../scheduling/placement.service';
import type { Clock } from '../tokens';
import { ENDED, RecordedWorkloadEvent, sagaContext } from './saga-facts';
import { Logger } from '@nestjs/common';

const logger = new Logger('workload-saga');

/** Gives back what ended work holds: a node's capacity when an allocation ends, the quota when a workload is deleted. */
export class ReleaseEnded {
  constructor(
    private readonly view: ClusterView,
    private readonly placement: PlacementService,
    private readonly hot: HotStreams,
    private readonly clock: Clock,
  ) {}

  /** Releases the capacity an ended allocation still reserves on its node (best effort; logged). */
  async releaseCapacity(event: RecordedEventOf<keyof typeof ENDED>): Promise<void> {
    const { allocationId, nodeId } = event.data;
    if (!this.view.node(nodeId)?.reservations.has(allocationId)) return;
    const context = sagaContext(this.clock, event.eventId, event.metadata.correlationId);
    await this.placement
      .releaseOn(nodeId, allocationId, event.type, context)
      .catch((error: Error) => logger.error(`release ${allocationId}: ${error.message}`));
  }

  /** Releases a deleted workload's quota hold (best effort; logged). */
  async releaseQuota(state: WorkloadState, event: RecordedWorkloadEvent): Promise<void> {
    const spec = state.spec;
    if (!spec || !state.workloadId) return;
    await this.hot.quotas
      .handle(
        quotaStream(spec.namespace),
        {
          type: 'Release',
          namespace: spec.namespace,
          workloadId: state.workloadId,
          reason: 'workload deleted',
        },
        sagaContext(this.clock, event.eventId, state.workloadId),
      )
      .catch((error: Error) => logger.error(`quota release ${state.workloadId}: ${error.message}`));
  }
}
