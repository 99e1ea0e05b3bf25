import { templateStream } from '@hcn/contracts';
import { TemplateCommand, TemplateEvent, TemplateState, templateDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandEngine } from '@hcn/commands';
import { CLOCK, Clock } from '../../tokens';
import { TemplateChangeCommand } from './define-template.command';
import { httpCommandContext } from '../../common/request-scope';

/** Runs a template change through the template decider on `template-<id>`. */
@CommandHandler(TemplateChangeCommand)
export class TemplateChangeHandler implements ICommandHandler<
  TemplateChangeCommand,
  { templateId: string; revision: number; events: string[] }
> {
  private readonly templates: CommandEngine<TemplateCommand, TemplateEvent, TemplateState>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.templates = new CommandEngine(store, templateDecider);
  }

  async execute({ change, actor, ifRevision }: TemplateChangeCommand) {
    const templateId = change.type === 'DeleteTemplate' ? change.templateId : change.definition.templateId;
    const context = httpCommandContext({ kind: 'user', id: actor }, this.clock());
    const handled = await this.templates.handle(templateStream(templateId), change, context, {
      ifRevision,
    });
    return { templateId, revision: handled.revision, events: handled.events.map((e) => e.type) };
  }
}
