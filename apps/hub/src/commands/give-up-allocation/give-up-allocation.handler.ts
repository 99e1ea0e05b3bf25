import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../tokens';
import { WorkloadCommandResult, runWorkloadCommand } from '../workload-command';
import { GiveUpAllocationCommand } from './give-up-allocation.command';

/**
 * An operator's decision on an allocation left `unknown` by its site's partition: AllocationLost (the restart policy
 * decides what follows; the site is told to cancel it, now or when it is reachable again).
 */
@CommandHandler(GiveUpAllocationCommand)
export class GiveUpAllocationHandler implements ICommandHandler<
  GiveUpAllocationCommand,
  WorkloadCommandResult
> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({
    principal,
    workloadId,
    allocationId,
    reason,
  }: GiveUpAllocationCommand): Promise<WorkloadCommandResult> {
    const at = this.clock().toISOString();
    return runWorkloadCommand(this.store, this.clock, principal, workloadId, {
      type: 'GiveUp',
      allocationId,
      reason,
      at,
    });
  }
}
