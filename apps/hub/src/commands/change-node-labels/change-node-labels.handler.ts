import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ClusterView } from '../../scheduling/cluster-view';
import { CLOCK, Clock } from '../../tokens';
import { NodeCommandResult, runNodeCommand } from '../node-command';
import { ChangeNodeLabelsCommand } from './change-node-labels.command';

/** Appends NodeLabelsChanged through the node decider (nothing when the labels are the same). */
@CommandHandler(ChangeNodeLabelsCommand)
export class ChangeNodeLabelsHandler implements ICommandHandler<ChangeNodeLabelsCommand, NodeCommandResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly view: ClusterView,
  ) {}

  execute({ nodeId, labels }: ChangeNodeLabelsCommand): Promise<NodeCommandResult> {
    return runNodeCommand(this.store, this.clock, { type: 'ChangeLabels', nodeId, labels }, this.view);
  }
}
