import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ClusterView } from '../../scheduling/cluster-view';
import { CLOCK, Clock } from '../../tokens';
import { NodeCommandResult, runNodeCommand } from '../node-command';
import { DrainNodeCommand } from './drain-node.command';

/** Appends NodeDrainRequested through the node decider. */
@CommandHandler(DrainNodeCommand)
export class DrainNodeHandler implements ICommandHandler<DrainNodeCommand, NodeCommandResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly view: ClusterView,
  ) {}

  execute({ nodeId, reason }: DrainNodeCommand): Promise<NodeCommandResult> {
    return runNodeCommand(this.store, this.clock, { type: 'RequestDrain', nodeId, reason }, this.view);
  }
}
