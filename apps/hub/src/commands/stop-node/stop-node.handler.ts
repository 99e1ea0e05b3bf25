import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { HotStreams } from '../../common/hot-streams';
import { CLOCK, Clock } from '../../tokens';
import { NodeCommandResult, runNodeCommand } from '../node-command';
import { StopNodeCommand } from './stop-node.command';

/** Appends NodeStopRequested through the node decider. */
@CommandHandler(StopNodeCommand)
export class StopNodeHandler implements ICommandHandler<StopNodeCommand, NodeCommandResult> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly hot: HotStreams,
  ) {}

  execute({ nodeId, reason }: StopNodeCommand): Promise<NodeCommandResult> {
    return runNodeCommand(this.hot.nodes, this.clock, { type: 'RequestStop', nodeId, reason });
  }
}
