import { templateStream } from '@hcn/contracts';
import { templateDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { handleOnStream } from '../../common/aggregate';
import { requestContext } from '../../common/command-context';
import { CLOCK, Clock } from '../../tokens';
import { TemplateChangeCommand } from './define-template.command';

/** Runs a template change through the template decider on `template-<id>`. */
@CommandHandler(TemplateChangeCommand)
export class TemplateChangeHandler implements ICommandHandler<
  TemplateChangeCommand,
  { templateId: string; revision: number; events: string[] }
> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ change, actor }: TemplateChangeCommand) {
    const templateId = change.type === 'DeleteTemplate' ? change.templateId : change.definition.templateId;
    const context = requestContext({ kind: 'user', id: actor }, this.clock());
    const handled = await handleOnStream(
      this.store,
      templateDecider,
      templateStream(templateId),
      change,
      context,
    );
    return { templateId, revision: handled.revision, events: handled.events.map((e) => e.type) };
  }
}
