import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { HotStreams } from '../../common/hot-streams';
import { CLOCK, Clock } from '../../tokens';
import { NodeCommandResult, runNodeCommand } from '../node-command';
import { ChangeNodeLabelsCommand } from './change-node-labels.command';

/** Appends NodeLabelsChanged through the node decider (nothing when the labels are the same). */
@CommandHandler(ChangeNodeLabelsCommand)
export class ChangeNodeLabelsHandler implements ICommandHandler<ChangeNodeLabelsCommand, NodeCommandResult> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly hot: HotStreams,
  ) {}

  execute({ nodeId, labels }: ChangeNodeLabelsCommand): Promise<NodeCommandResult> {
    return runNodeCommand(this.hot.nodes, this.clock, { type: 'ChangeLabels', nodeId, labels });
  }
}
