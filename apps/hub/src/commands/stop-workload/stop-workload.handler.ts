import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../tokens';
import { WorkloadCommandResult, runWorkloadCommand } from '../workload-command';
import { StopWorkloadCommand } from './stop-workload.command';

/** WorkloadStopRequested plus one AllocationStopRequested per active allocation (relayed to the agents). */
@CommandHandler(StopWorkloadCommand)
export class StopWorkloadHandler implements ICommandHandler<StopWorkloadCommand, WorkloadCommandResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ principal, workloadId, reason }: StopWorkloadCommand): Promise<WorkloadCommandResult> {
    return runWorkloadCommand(this.store, this.clock, principal, workloadId, { type: 'RequestStop', reason });
  }
}
