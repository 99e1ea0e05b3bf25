import { DomainDefinition, HcnError, domainStream } from '@hcn/contracts';
import { POLICY_NAMES, isPolicyName } from '@hcn/scheduling';
import {
  DomainCommand,
  DomainError,
  DomainEvent,
  DomainState,
  checkTreePlacement,
  domainDecider,
  foldRecorded,
} from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandEngine } from '@hcn/commands';
import { ClusterView } from '../../scheduling/cluster-view';
import { CLOCK, Clock } from '../../tokens';
import { DefineDomainCommand } from './define-domain.command';
import { httpCommandContext } from '../../common/request-scope';
import type { DomainCommandResult } from '../../common/command-results';

/** Result of a domain definition (its schema: common/command-results.ts). */
export type { DomainCommandResult };

/**
 * Checks the tree (parent defined, no cycle, head node registered), then DomainDefined / DomainUpdated through
 * the domain decider. The tree comes from the cluster view, with the parent's own stream as a fallback.
 */
@CommandHandler(DefineDomainCommand)
export class DefineDomainHandler implements ICommandHandler<DefineDomainCommand, DomainCommandResult> {
  private readonly domains: CommandEngine<DomainCommand, DomainEvent, DomainState>;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly view: ClusterView,
  ) {
    this.domains = new CommandEngine(store, domainDecider);
  }

  async execute({ definition, mode, actor, ifRevision }: DefineDomainCommand): Promise<DomainCommandResult> {
    if (!isPolicyName(definition.policy))
      throw new HcnError('DOMAIN.UNKNOWN_POLICY', `Unknown policy ${definition.policy}`, {
        policy: definition.policy,
        known: [...POLICY_NAMES],
      });
    await this.checkTree(definition);
    const context = httpCommandContext({ kind: 'user', id: actor }, this.clock());
    const command = mode === 'create' ? ('DefineDomain' as const) : ('UpdateDomain' as const);
    const handled = await this.domains.handle(
      domainStream(definition.domainId),
      { type: command, definition },
      context,
      { ifRevision },
    );
    if (handled.events.length > 0) this.view.defineDomain(definition);
    return {
      domainId: definition.domainId,
      revision: handled.revision,
      events: handled.events.map((e) => e.type),
    };
  }

  private async checkTree(definition: DomainDefinition): Promise<void> {
    const parents = this.view.domainParents();
    const parentId = definition.parentId;
    if (parentId && !parents.has(parentId)) {
      const events = await this.store.readStream(domainStream(parentId));
      const parent = foldRecorded(domainDecider, events).definition;
      if (parent) parents.set(parentId, parent.parentId);
    }
    checkTreePlacement(definition, parents);
    const head = definition.headNodeId;
    if (head && !this.view.node(head)?.registration) {
      throw new DomainError('DOMAIN.HEAD_NODE_NOT_FOUND', `Head node ${head} is not registered`, {
        headNodeId: head,
      });
    }
  }
}
