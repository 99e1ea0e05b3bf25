import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../tokens';
import { WorkloadCommandResult, runWorkloadCommand } from '../workload-command';
import { DeleteWorkloadCommand } from './delete-workload.command';

/** WorkloadDeleted: allocations are stopped; the saga releases the quota. */
@CommandHandler(DeleteWorkloadCommand)
export class DeleteWorkloadHandler implements ICommandHandler<DeleteWorkloadCommand, WorkloadCommandResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({
    principal,
    workloadId,
    reason,
    ifRevision,
  }: DeleteWorkloadCommand): Promise<WorkloadCommandResult> {
    const command = { type: 'Delete' as const, reason };
    return runWorkloadCommand(this.store, this.clock, principal, workloadId, command, ifRevision);
  }
}
