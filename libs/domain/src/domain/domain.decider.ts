import type { DomainDefinition, EventDataOf } from '@hcn/contracts';
import { sameJson } from '../equality';
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

/** Decides definition changes; tree checks (parent exists, no cycle) need other domains and live in the handler. */
export function decideDomain(command: DomainCommand, state: DomainState): DomainEvent[] {
  const id = command.definition.domainId;
  switch (command.type) {
    case 'DefineDomain':
      if (!state.definition) return [{ type: 'DomainDefined', data: command.definition }];
      if (sameJson(state.definition, command.definition)) return [];
      throw new DomainError(
        'DOMAIN.ALREADY_EXISTS',
        `Domain ${id} is already defined; use PUT to change it`,
        {
          domainId: id,
        },
      );
    case 'UpdateDomain':
      if (!state.definition)
        throw new DomainError('DOMAIN.NOT_FOUND', `Domain ${id} is not defined`, { domainId: id });
      if (sameJson(state.definition, command.definition)) return [];
      return [{ type: 'DomainUpdated', data: command.definition }];
    default:
      return assertNever(command);
  }
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

/** The domain decider. */
export const domainDecider = { initialState: initialDomainState, decide: decideDomain, evolve: evolveDomain };

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
