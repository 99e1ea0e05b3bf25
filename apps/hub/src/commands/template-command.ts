import { HcnError, TemplateDefinition, templateStream, z } from '@hcn/contracts';
import { TemplateCommand, foldRecorded, templateDecider } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import type { CommandBus } from '@nestjs/cqrs';
import { Principal, requireNamespace } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import type { TemplateCommandResult } from '../common/command-results';
import type { TemplateCatalog } from '../scheduling/template-catalog';
import { TemplateChangeCommand } from './define-template/define-template.command';

const templateIdSchema = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);

/** A template the principal may see and its stream's revision, read from its stream (TEMPLATE.NOT_FOUND otherwise). */
export async function loadTemplateAt(
  store: EventStore,
  principal: Principal,
  id: string,
): Promise<{ definition: TemplateDefinition; revision: number }> {
  const templateId = parseBody(templateIdSchema, id, 'TEMPLATE.ID');
  const events = await store.readStream(templateStream(templateId));
  const definition = foldRecorded(templateDecider, events).definition;
  const notFound = { code: 'TEMPLATE.NOT_FOUND', message: `Template ${templateId} does not exist` };
  if (!definition) throw new HcnError(notFound.code, notFound.message);
  requireNamespace(principal, definition.namespace, notFound);
  return { definition, revision: events[events.length - 1].revision };
}

/** A template the principal may see, read from its stream (TEMPLATE.NOT_FOUND otherwise). */
export async function loadTemplate(
  store: EventStore,
  principal: Principal,
  id: string,
): Promise<TemplateDefinition> {
  return (await loadTemplateAt(store, principal, id)).definition;
}

/**
 * Runs a template change in the principal's namespace (with `ifRevision`, If-Match, only on the stream at one of
 * those revisions), then tells this hub's catalog (shared by the template use cases).
 */
export async function changeTemplate(
  commands: CommandBus,
  catalog: TemplateCatalog,
  principal: Principal,
  namespace: string,
  change: TemplateCommand,
  ifRevision?: readonly number[],
): Promise<TemplateCommandResult> {
  requireNamespace(principal, namespace);
  const result = await commands.execute<TemplateChangeCommand, TemplateCommandResult>(
    new TemplateChangeCommand(change, principal.name, ifRevision),
  );
  if (change.type === 'DeleteTemplate')
    catalog.apply({ type: 'TemplateDeleted', data: { templateId: change.templateId } });
  else catalog.apply({ type: 'TemplateDefined', data: change.definition });
  return result;
}
