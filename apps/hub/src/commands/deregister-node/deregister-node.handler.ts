import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { HotStreams } from '../../common/hot-streams';
import { CLOCK, Clock } from '../../tokens';
import { NodeCommandResult, runNodeCommand } from '../node-command';
import { DeregisterNodeCommand } from './deregister-node.command';

/**
 * Appends NodeDeregistered through the node decider: the node leaves scheduling, liveness and the fleet's count;
 * the saga marks its active allocations lost (their restart policy decides); its stream keeps its history.
 */
@CommandHandler(DeregisterNodeCommand)
export class DeregisterNodeHandler implements ICommandHandler<DeregisterNodeCommand, NodeCommandResult> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly hot: HotStreams,
  ) {}

  execute({ nodeId, reason }: DeregisterNodeCommand): Promise<NodeCommandResult> {
    return runNodeCommand(this.hot.nodes, this.clock, { type: 'Deregister', nodeId, reason });
  }
}
