import type { Projection } from '../projection';
import { delegationHopsProjection } from './delegation-hops.projection';
import { deviceStateProjection } from './device-state.projection';
import { nodeStateProjection } from './node-state.projection';
import { quotaUsageProjection } from './quota-usage.projection';
import { sitesProjection } from './sites.projection';
import { taskQueuesProjection } from './taskqueues.projection';
import { workloadsProjection } from './workloads.projection';

/** Every projection the projector runs. */
export const PROJECTIONS: readonly Projection[] = [
  nodeStateProjection,
  workloadsProjection,
  quotaUsageProjection,
  delegationHopsProjection,
  deviceStateProjection,
  taskQueuesProjection,
  sitesProjection,
];
