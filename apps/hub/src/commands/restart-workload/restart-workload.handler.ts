import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../tokens';
import { WorkloadCommandResult, runWorkloadCommand } from '../workload-command';
import { RestartWorkloadCommand } from './restart-workload.command';

/** WorkloadRestartRequested: active allocations are stopped and replaced, ended instances get a new attempt. */
@CommandHandler(RestartWorkloadCommand)
export class RestartWorkloadHandler implements ICommandHandler<
  RestartWorkloadCommand,
  WorkloadCommandResult
> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ principal, workloadId, reason }: RestartWorkloadCommand): Promise<WorkloadCommandResult> {
    return runWorkloadCommand(this.store, this.clock, principal, workloadId, {
      type: 'RequestRestart',
      reason,
    });
  }
}
