import { type TemplateDefinition, isEventOfTypes } from '@hcn/contracts';
import { type TemplateEvent, templateDecider } from '@hcn/domain';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { Logger } from '@nestjs/common';

const logger = new Logger('templates');

/** The job templates that exist, folded from `template-*` streams, for listing. */
export class TemplateCatalog {
  private readonly templates = new Map<string, TemplateDefinition>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly health = new SubscriptionHealth(),
  ) {}

  /** Follows the template streams. */
  start(): void {
    this.subscription = superviseSubscription(
      this.store,
      {
        filter: { kind: 'streamPrefix', prefixes: ['template-'] },
        onEvent: (event) => {
          if (isEventOfTypes(event, templateDecider.eventTypes)) this.apply(event);
        },
        onError: (error) => logger.error(error.message),
        coalesceMs: 500,
      },
      { name: 'templates', health: this.health, log: (line) => logger.warn(line) },
    );
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Applies one template event (also called right after this hub appended one). */
  apply(event: TemplateEvent): void {
    if (event.type === 'TemplateDeleted') this.templates.delete(event.data.templateId);
    else this.templates.set(event.data.templateId, event.data);
  }

  /** Templates in the given namespaces (`*` = all), by id. */
  list(namespaces: readonly string[] | '*'): TemplateDefinition[] {
    return [...this.templates.values()]
      .filter((t) => namespaces === '*' || namespaces.includes(t.namespace))
      .sort((a, b) => (a.templateId < b.templateId ? -1 : a.templateId > b.templateId ? 1 : 0));
  }
}
