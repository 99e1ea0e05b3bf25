import type { TaskSpec } from '@hcn/contracts';
import { TASK_INSTANCE_CPU_MILLIS } from '@hcn/domain';
import { constraintsOf, eligibleNodes } from '@hcn/scheduling';
import type { ClusterView } from '../../scheduling/cluster-view';
import type { EligibleNode } from './task-plan';

/**
 * The nodes a task fans out to: those the scheduler's filters (all but the fit ones) accept for one instance of it
 * (online, not draining, the runtime it needs, its constraints), with their cores.
 */
export function eligibleFor(view: ClusterView, spec: TaskSpec): EligibleNode[] {
  const { eligible } = eligibleNodes(view.schedulingIndex(), {
    workloadId: 'task-eligibility',
    instance: 0,
    resources: { cpuMillis: TASK_INSTANCE_CPU_MILLIS, memoryBytes: spec.memoryBytes, accelerators: 0 },
    constraints: constraintsOf(spec.constraints),
    runtime: spec.image ? 'container' : 'process',
  });
  return eligible.map((nodeId) => ({ nodeId, cpuCores: view.node(nodeId)?.registration?.cpuCores ?? 0 }));
}
