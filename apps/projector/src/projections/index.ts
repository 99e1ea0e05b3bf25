import type { Projection } from '../projection';
import { clusterCheckpointsProjection } from './cluster-checkpoints.projection';
import { delegationHopsProjection } from './delegation-hops.projection';
import { deviceStateProjection } from './device-state.projection';
import { nodeStateProjection } from './node-state.projection';
import { quotaUsageProjection } from './quota-usage.projection';
import { sitesProjection } from './sites.projection';
import { taskQueuesProjection } from './taskqueues.projection';
import { workloadsProjection } from './workloads.projection';

/** Settings of the projections. */
export interface ProjectionSettings {
  /** Cluster events between two cluster checkpoints (HCN_CLUSTER_CHECKPOINT_EVENTS). */
  readonly clusterCheckpointEvents?: number;
}

/**
 * Every projection the projector runs, fresh for one runner (the cluster checkpoints hold their fold in memory
 * between writes, so a list is never shared by two runners).
 */
export function createProjections(settings: ProjectionSettings = {}): Projection[] {
  return [
    nodeStateProjection,
    workloadsProjection,
    quotaUsageProjection,
    delegationHopsProjection,
    deviceStateProjection,
    taskQueuesProjection,
    sitesProjection,
    clusterCheckpointsProjection(settings.clusterCheckpointEvents),
  ];
}
