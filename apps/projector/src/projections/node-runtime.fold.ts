import { NODE_LOSS_ACTOR_ID } from '@hcn/contracts';
import { ACTIVE_ALLOCATION, AllocationView, WorkloadState } from '@hcn/domain';
import type { NodeRuntimeError } from '@hcn/read-models';
import type { RecordedWorkloadEvent } from './workloads.fold';

/**
 * What one applied workload event did to the runtime of its allocation's node:
 * - `placed`: an allocation became active on it (clears the node's last error: a new start resets it, as GridCore);
 * - `ended`: one ended well (completed, or stopped on request): the most recent outcome is no failure any more;
 * - `failed`: one failed, or the node itself (or a hub check of its runtime: no start, not in its heartbeats) lost
 *   it: that failure becomes the node's last error;
 * - `released`: one was lost because the node went offline or was deregistered; the node's status says that, so
 *   its last error stays as it was.
 * `at` is when the event was recorded (the row's updated_at).
 */
export type NodeRuntimeChange =
  | { readonly kind: 'placed' | 'ended' | 'released'; readonly nodeId: string; readonly at: string }
  | {
      readonly kind: 'failed';
      readonly nodeId: string;
      readonly at: string;
      readonly error: NodeRuntimeError;
    };

/** True for a loss the hub recorded because the allocation's node went offline or was deregistered. */
function lostWithNode(event: RecordedWorkloadEvent): boolean {
  const { actor } = event.metadata;
  return actor.kind === 'system' && actor.id === NODE_LOSS_ACTOR_ID;
}

/**
 * The runtime change of one applied event, from its allocation's status before and after it: a change only when the
 * allocation becomes active or stops being active (an event that changes nothing, or an allocation of another
 * workload, gives none).
 */
export function nodeRuntimeChange(
  before: WorkloadState,
  after: WorkloadState,
  event: RecordedWorkloadEvent,
): NodeRuntimeChange | undefined {
  if (!('allocationId' in event.data) || !event.data.allocationId) return undefined;
  const { allocationId } = event.data;
  const now = after.allocations[allocationId];
  if (!now || now.siteId !== undefined) return undefined; // delegated to another site: no node of this one
  const was = before.allocations[allocationId];
  const wasActive = was !== undefined && ACTIVE_ALLOCATION.has(was.status);
  const isActive = ACTIVE_ALLOCATION.has(now.status);
  const base = { nodeId: now.nodeId, at: event.recordedAt };
  if (!wasActive && isActive) return { kind: 'placed', ...base };
  if (!wasActive || isActive) return undefined;
  switch (now.status) {
    case 'completed':
    case 'stopped':
      return { kind: 'ended', ...base };
    case 'lost':
      if (lostWithNode(event)) return { kind: 'released', ...base };
      return { kind: 'failed', ...base, error: errorOf(event, now) };
    case 'failed':
      return { kind: 'failed', ...base, error: errorOf(event, now) };
    case 'placed':
    case 'running':
    case 'stopping':
    case 'unknown':
      return undefined; // active: handled above
    case 'rejected':
      return undefined; // delegated to another site: left out above
    default: {
      const unreachable: never = now.status;
      throw new Error(`Unhandled allocation status ${String(unreachable)}`);
    }
  }
}

/** The node error of an allocation that failed or was lost: its reason (else its status and exit code) and end. */
function errorOf(event: RecordedWorkloadEvent, allocation: AllocationView): NodeRuntimeError {
  const data = event.data as { workloadId: string; endedAt?: string; lostAt?: string };
  const exit = allocation.exitCode == null ? '' : ` with exit code ${allocation.exitCode}`;
  return {
    allocationId: allocation.allocationId,
    workloadId: data.workloadId,
    reason: allocation.reason ?? `${allocation.status}${exit}`,
    at: data.endedAt ?? data.lostAt ?? event.recordedAt,
  };
}

/** A node's last error after a change (see NodeRuntimeChange). */
export function evolveLastError(
  lastError: NodeRuntimeError | null,
  change: NodeRuntimeChange,
): NodeRuntimeError | null {
  switch (change.kind) {
    case 'placed':
    case 'ended':
      return null;
    case 'failed':
      return change.error;
    case 'released':
      return lastError;
    default: {
      const unreachable: never = change;
      throw new Error(`Unhandled node runtime change ${JSON.stringify(unreachable)}`);
    }
  }
}
