import type { EventDataOf, TemplateDefinition } from '@hcn/contracts';
import { sameJson } from '../equality';
import { EventTypes, defineDecider } from '../decider';
import { DomainError, assertNever } from '../errors';

const PLACEHOLDER = /\$\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;

/** Commands on a job template. */
export type TemplateCommand =
  | { type: 'DefineTemplate'; definition: TemplateDefinition }
  | { type: 'UpdateTemplate'; definition: TemplateDefinition }
  | { type: 'DeleteTemplate'; templateId: string };

/** Events of a template stream. */
export type TemplateEvent =
  | { type: 'TemplateDefined'; data: EventDataOf<'TemplateDefined'> }
  | { type: 'TemplateUpdated'; data: EventDataOf<'TemplateUpdated'> }
  | { type: 'TemplateDeleted'; data: EventDataOf<'TemplateDeleted'> };

/** A template's current definition, or null (never defined or deleted). */
export interface TemplateState {
  readonly definition: TemplateDefinition | null;
}

/** Before definition. */
export const initialTemplateState: TemplateState = { definition: null };

function notFound(templateId: string): DomainError {
  return new DomainError('TEMPLATE.NOT_FOUND', `Template ${templateId} does not exist`, { templateId });
}

/** Names used as `${name}` in a template's spec that its parameters do not declare. */
export function undeclaredPlaceholders(definition: TemplateDefinition): string[] {
  const declared = new Set(definition.parameters.map((p) => p.name));
  const used = [...JSON.stringify(definition.spec).matchAll(PLACEHOLDER)].map((m) => m[1]);
  return [...new Set(used.filter((name) => !declared.has(name)))];
}

/** Every `${name}` of a template's spec must be a declared parameter. */
function undeclaredParameter(definition: TemplateDefinition): DomainError | undefined {
  const undeclared = undeclaredPlaceholders(definition);
  if (undeclared.length === 0) return undefined;
  return new DomainError(
    'TEMPLATE.UNDECLARED_PARAMETER',
    `Placeholders without a parameter: ${undeclared.join(', ')}`,
    { templateId: definition.templateId, undeclared },
  );
}

/** Why a template change is refused: undeclared placeholders, an id in use, no such template, a namespace move. */
export function validateTemplate(command: TemplateCommand, state: TemplateState): DomainError | undefined {
  if (command.type === 'DeleteTemplate') return state.definition ? undefined : notFound(command.templateId);
  const { definition } = command;
  const refusal = undeclaredParameter(definition);
  if (refusal) return refusal;
  if (command.type === 'DefineTemplate') {
    if (!state.definition || sameJson(state.definition, definition)) return undefined;
    return new DomainError(
      'TEMPLATE.ALREADY_EXISTS',
      `Template ${definition.templateId} exists; use PUT to change it`,
      { templateId: definition.templateId },
    );
  }
  if (!state.definition) return notFound(definition.templateId);
  if (state.definition.namespace === definition.namespace) return undefined;
  return new DomainError('TEMPLATE.NAMESPACE_IMMUTABLE', 'A template cannot move to another namespace', {
    templateId: definition.templateId,
  });
}

/** Decides accepted template changes: nothing when the definition is already the one given. */
function decideAcceptedTemplate(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  switch (command.type) {
    case 'DefineTemplate':
      return state.definition ? [] : [{ type: 'TemplateDefined', data: command.definition }];
    case 'UpdateTemplate':
      return sameJson(state.definition, command.definition)
        ? []
        : [{ type: 'TemplateUpdated', data: command.definition }];
    case 'DeleteTemplate':
      return [{ type: 'TemplateDeleted', data: { templateId: command.templateId } }];
    default:
      return assertNever(command);
  }
}

/** Folds one template event. */
export function evolveTemplate(_state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'TemplateDefined':
    case 'TemplateUpdated':
      return { definition: event.data };
    case 'TemplateDeleted':
      return { definition: null };
    default:
      return assertNever(event);
  }
}

/** The event types of a template stream. */
const TEMPLATE_EVENT_TYPES: EventTypes<TemplateEvent> = {
  TemplateDefined: true,
  TemplateUpdated: true,
  TemplateDeleted: true,
};

/** The template decider. */
export const templateDecider = defineDecider({
  initialState: initialTemplateState,
  eventTypes: TEMPLATE_EVENT_TYPES,
  validate: validateTemplate,
  decideAccepted: decideAcceptedTemplate,
  evolve: evolveTemplate,
});

/** Decides template changes; throws DomainError when refused. */
export const decideTemplate = templateDecider.decide;

function substitute(value: unknown, params: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return value.replace(PLACEHOLDER, (_m, name: string) => params[name]);
  if (Array.isArray(value)) return value.map((v) => substitute(v, params));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, params)]));
  }
  return value;
}

/**
 * Fills a template's `${param}` placeholders (string values only) from `given` and the defaults. Throws
 * TEMPLATE.UNKNOWN_PARAMETER or TEMPLATE.MISSING_PARAMETER; the result still has to pass the workload schema.
 */
export function instantiateTemplate(
  definition: TemplateDefinition,
  given: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const declared = new Map(definition.parameters.map((p) => [p.name, p]));
  const unknown = Object.keys(given).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    throw new DomainError(
      'TEMPLATE.UNKNOWN_PARAMETER',
      `Unknown template parameter(s): ${unknown.join(', ')}`,
      {
        templateId: definition.templateId,
        unknown,
        declared: [...declared.keys()],
      },
    );
  }
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const p of definition.parameters) {
    const value = given[p.name] ?? p.default;
    if (value === undefined) missing.push(p.name);
    else values[p.name] = value;
  }
  if (missing.length > 0) {
    throw new DomainError(
      'TEMPLATE.MISSING_PARAMETER',
      `Missing template parameter(s): ${missing.join(', ')}`,
      {
        templateId: definition.templateId,
        missing,
      },
    );
  }
  return substitute(definition.spec, values) as Record<string, unknown>;
}
