import { quotaStream } from '@hcn/contracts';
import { QuotaCommand, QuotaEvent, QuotaState, quotaDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandEngine } from '@hcn/commands';
import { CLOCK, Clock } from '../../tokens';
import { SetQuotaCommand } from './set-quota.command';
import { httpCommandContext } from '../../common/request-scope';

/** Appends QuotaSet (a no-op when the limits are unchanged). Lower limits do not evict what already runs. */
@CommandHandler(SetQuotaCommand)
export class SetQuotaHandler implements ICommandHandler<
  SetQuotaCommand,
  { namespace: string; revision: number; events: string[] }
> {
  private readonly quotas: CommandEngine<QuotaCommand, QuotaEvent, QuotaState>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.quotas = new CommandEngine(store, quotaDecider);
  }

  async execute({ namespace, limits, actor, ifRevision }: SetQuotaCommand) {
    const context = httpCommandContext({ kind: 'user', id: actor }, this.clock());
    const handled = await this.quotas.handle(
      quotaStream(namespace),
      { type: 'SetLimits', namespace, limits },
      context,
      { ifRevision },
    );
    return { namespace, revision: handled.revision, events: handled.events.map((e) => e.type) };
  }
}
