import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { HotStreams } from '../../common/hot-streams';
import { CLOCK, Clock } from '../../tokens';
import { NodeCommandResult, runNodeCommand } from '../node-command';
import { DrainNodeCommand } from './drain-node.command';

/** Appends NodeDrainRequested through the node decider. */
@CommandHandler(DrainNodeCommand)
export class DrainNodeHandler implements ICommandHandler<DrainNodeCommand, NodeCommandResult> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly hot: HotStreams,
  ) {}

  execute({ nodeId, reason }: DrainNodeCommand): Promise<NodeCommandResult> {
    return runNodeCommand(this.hot.nodes, this.clock, { type: 'RequestDrain', nodeId, reason });
  }
}
