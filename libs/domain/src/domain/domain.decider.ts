import type { DomainDefinition, EventDataOf } from '@hcn/contracts';
import { sameJson } from '../equality';
import { EventTypes, defineDecider } from '../decider';
import { DomainError, assertNever } from '../errors';

/** Commands on a domain's definition. */
export type DomainCommand =
  | { type: 'DefineDomain'; definition: DomainDefinition }
  | { type: 'UpdateDomain'; definition: DomainDefinition };

/** Events of a domain stream. */
export type DomainEvent =
  | { type: 'DomainDefined'; data: EventDataOf<'DomainDefined'> }
  | { type: 'DomainUpdated'; data: EventDataOf<'DomainUpdated'> };

/** A domain's current definition, or null before it is defined. */
export interface DomainState {
  readonly definition: DomainDefinition | null;
}

/** Before definition. */
export const initialDomainState: DomainState = { definition: null };

/**
 * Why a definition change is refused: defining another definition under a used id, updating an undefined domain.
 * Tree checks (parent exists, no cycle) need other domains and live in the handler.
 */
export function validateDomain(command: DomainCommand, state: DomainState): DomainError | undefined {
  const id = command.definition.domainId;
  switch (command.type) {
    case 'DefineDomain':
      if (!state.definition || sameJson(state.definition, command.definition)) return undefined;
      return new DomainError(
        'DOMAIN.ALREADY_EXISTS',
        `Domain ${id} is already defined; use PUT to change it`,
        {
          domainId: id,
        },
      );
    case 'UpdateDomain':
      if (state.definition) return undefined;
      return new DomainError('DOMAIN.NOT_FOUND', `Domain ${id} is not defined`, { domainId: id });
    default:
      return assertNever(command);
  }
}

/** Decides accepted definition changes: nothing when the definition is already the one given. */
function decideAcceptedDomain(command: DomainCommand, state: DomainState): DomainEvent[] {
  if (sameJson(state.definition, command.definition)) return [];
  const type = command.type === 'DefineDomain' ? 'DomainDefined' : 'DomainUpdated';
  return [{ type, data: command.definition }];
}

/** Folds one domain event. */
export function evolveDomain(_state: DomainState, event: DomainEvent): DomainState {
  switch (event.type) {
    case 'DomainDefined':
    case 'DomainUpdated':
      return { definition: event.data };
    default:
      return assertNever(event);
  }
}

/** The event types of a domain stream. */
const DOMAIN_EVENT_TYPES: EventTypes<DomainEvent> = { DomainDefined: true, DomainUpdated: true };

/** The domain decider. */
export const domainDecider = defineDecider({
  initialState: initialDomainState,
  eventTypes: DOMAIN_EVENT_TYPES,
  validate: validateDomain,
  decideAccepted: decideAcceptedDomain,
  evolve: evolveDomain,
});

/** Decides definition changes; throws DomainError when refused. */
export const decideDomain = domainDecider.decide;

/**
 * Checks a definition against the tree (ids to parent ids): the parent must be defined and the domain must not
 * end up its own ancestor. Throws DOMAIN.PARENT_NOT_FOUND or DOMAIN.CYCLE.
 */
export function checkTreePlacement(
  definition: DomainDefinition,
  parents: ReadonlyMap<string, string | null>,
): void {
  const { domainId, parentId } = definition;
  if (parentId === null) return;
  if (!parents.has(parentId)) {
    throw new DomainError('DOMAIN.PARENT_NOT_FOUND', `Parent domain ${parentId} is not defined`, {
      domainId,
      parentId,
    });
  }
  for (let at: string | null = parentId, steps = 0; at !== null && steps <= parents.size; steps++) {
    if (at === domainId) {
      throw new DomainError(
        'DOMAIN.CYCLE',
        `Domain ${domainId} cannot be its own ancestor (via ${parentId})`,
        {
          domainId,
          parentId,
        },
      );
    }
    at = parents.get(at) ?? null;
  }
}
