import { workloadStream } from '@hcn/contracts';
import { workloadDecider } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { CommandEngine } from '@hcn/commands';

/** What a system part says when it gives an allocation up. */
export interface Loss {
  readonly workloadId: string;
  readonly allocationId: string;
  readonly nodeId?: string;
  readonly reason: string;
  /** The part that decided (the event's actor) and what caused it. */
  readonly by: string;
  readonly cause: string;
  readonly now: Date;
  /** When it was lost (default `now`). */
  readonly at?: string;
}

/** Appends AllocationLost through the workload's decider (nothing when the allocation already ended). */
export async function markAllocationLost(store: EventStore, loss: Loss): Promise<void> {
  await new CommandEngine(store, workloadDecider).handle(
    workloadStream(loss.workloadId),
    {
      type: 'MarkLost',
      allocationId: loss.allocationId,
      ...(loss.nodeId ? { nodeId: loss.nodeId } : {}),
      reason: loss.reason,
      at: loss.at ?? loss.now.toISOString(),
    },
    {
      correlationId: loss.workloadId,
      causationId: loss.cause,
      actor: { kind: 'system', id: loss.by },
      now: loss.now,
    },
  );
}
