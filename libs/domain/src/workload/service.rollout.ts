import { isServiceType, type PublishedPort } from '@hcn/contracts';
import type { WorkloadEvent } from './workload.commands';
import { evolveWorkload } from './workload.evolve';
import type { AllocationView, InstanceView, WorkloadState } from './workload.state';

/** True for a workload that runs as a service (long-running, named ports, readiness, rolling replacement): a service or a model. */
export function isService(state: WorkloadState): boolean {
  return isServiceType(state.spec?.type);
}

/** The state after `events` (as the decider's events would be folded). */
export function stateAfter(state: WorkloadState, events: readonly WorkloadEvent[]): WorkloadState {
  return events.reduce(evolveWorkload, state);
}

/** An allocation of an older spec (or asked to restart) that still runs or waits to start, not yet asked to stop. */
function outdated(allocation: AllocationView | undefined): allocation is AllocationView {
  return allocation?.replace === true && (allocation.status === 'placed' || allocation.status === 'running');
}

/** An instance serving now: its current allocation runs and is ready. */
function available(state: WorkloadState, instance: InstanceView): boolean {
  const allocation = instance.allocationId ? state.allocations[instance.allocationId] : undefined;
  return instance.status === 'running' && allocation?.status === 'running' && allocation.ready === true;
}

/**
 * The next allocation a service's rolling replacement (after an update or a restart) stops: one at a time, at most
 * one replica unavailable and no surge. While every replica serves, the outdated one of the lowest instance; while
 * replicas are unavailable, only when each of them is itself outdated (it serves no one, so replacing it costs
 * nothing); otherwise nothing (a replacement is on its way: placed, starting, not ready yet, or stopping). The
 * stopped allocation's instance gets a new attempt of the current spec once it has ended (its `replace` mark).
 */
export function nextRolloutStop(state: WorkloadState): AllocationView | undefined {
  const spec = state.spec;
  if (!spec || !isServiceType(spec.type) || state.desired !== 'running' || state.deleted) return undefined;
  const serving = state.instances.filter((i) => i.instance < spec.replicas);
  const current = (i: InstanceView): AllocationView | undefined =>
    i.allocationId ? state.allocations[i.allocationId] : undefined;
  const unavailable = serving.filter((i) => !available(state, i));
  const candidates =
    unavailable.length > 0
      ? unavailable.every((i) => outdated(current(i)))
        ? unavailable.map(current)
        : []
      : serving.map(current);
  return candidates.filter(outdated).sort((a, b) => a.instance - b.instance)[0];
}

/** The stop request of the rolling replacement's next step on `state`, if any (see nextRolloutStop). */
export function rolloutStep(state: WorkloadState, reason: string): WorkloadEvent[] {
  const next = nextRolloutStop(state);
  if (!next || !state.workloadId || !state.spec) return [];
  return [
    {
      type: 'AllocationStopRequested',
      data: {
        workloadId: state.workloadId,
        allocationId: next.allocationId,
        nodeId: next.nodeId,
        gracePeriodSeconds: state.spec.stopGraceSeconds,
        reason: `${reason} (instance ${next.instance}, generation ${next.generation} -> ${state.generation})`,
      },
    },
  ];
}

/** A ready replica of a service: where it runs and the ports it publishes, by name. */
export interface ReadyReplica {
  readonly instance: number;
  readonly allocationId: string;
  readonly nodeId: string;
  readonly generation: number;
  readonly ports: readonly PublishedPort[];
}

/** The service's ready replicas (running, ready, not asked to stop), by instance. */
export function readyReplicas(state: WorkloadState): ReadyReplica[] {
  if (!isService(state)) return [];
  return Object.values(state.allocations)
    .filter((a) => a.status === 'running' && a.ready === true)
    .sort((a, b) => a.instance - b.instance || a.attempt - b.attempt)
    .map((a) => ({
      instance: a.instance,
      allocationId: a.allocationId,
      nodeId: a.nodeId,
      generation: a.generation,
      ports: (a.ports ?? []).filter((p) => p.name !== undefined),
    }));
}
