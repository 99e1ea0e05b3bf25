import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ClusterView } from '../../scheduling/cluster-view';
import { CLOCK, Clock } from '../../tokens';
import { NodeCommandResult, runNodeCommand } from '../node-command';
import { StopNodeCommand } from './stop-node.command';

/** Appends NodeStopRequested through the node decider. */
@CommandHandler(StopNodeCommand)
export class StopNodeHandler implements ICommandHandler<StopNodeCommand, NodeCommandResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly view: ClusterView,
  ) {}

  execute({ nodeId, reason }: StopNodeCommand): Promise<NodeCommandResult> {
    return runNodeCommand(this.store, this.clock, { type: 'RequestStop', nodeId, reason }, this.view);
  }
}
