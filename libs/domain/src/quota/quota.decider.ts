import type { EventDataOf, QuotaLimits, ResourceAmounts } from '@hcn/contracts';
import { sameJson } from '../equality';
import { DomainError, assertNever } from '../errors';
import { NO_RESOURCES, RESOURCE_KINDS, addAmounts } from '../resources';

/** Commands on a namespace's quota. */
export type QuotaCommand =
  | { type: 'SetLimits'; namespace: string; limits: QuotaLimits }
  | { type: 'Hold'; namespace: string; workloadId: string; resources: ResourceAmounts }
  | { type: 'Release'; namespace: string; workloadId: string; reason: string };

/** Events of a namespace's quota stream. */
export type QuotaEvent =
  | { type: 'QuotaSet'; data: EventDataOf<'QuotaSet'> }
  | { type: 'QuotaConsumed'; data: EventDataOf<'QuotaConsumed'> }
  | { type: 'QuotaReleased'; data: EventDataOf<'QuotaReleased'> };

/** Limits of a namespace and what each workload holds against them. */
export interface QuotaState {
  readonly limits: QuotaLimits | null;
  readonly held: Readonly<Record<string, ResourceAmounts>>;
}

/** A namespace without limits or holdings. */
export const initialQuotaState: QuotaState = { limits: null, held: {} };

/** Total held in a namespace, plus the number of workloads holding. */
export function quotaUsed(state: QuotaState): ResourceAmounts & { workloads: number } {
  const total = Object.values(state.held).reduce(addAmounts, NO_RESOURCES);
  return { ...total, workloads: Object.keys(state.held).length };
}

function overLimits(state: QuotaState, workloadId: string, resources: ResourceAmounts): string[] {
  const limits = state.limits;
  if (!limits) return [];
  const others = { ...state.held };
  delete others[workloadId];
  const after = quotaUsed({ ...state, held: { ...others, [workloadId]: resources } });
  const kinds = [...RESOURCE_KINDS, 'workloads'] as const;
  return kinds
    .filter((kind) => limits[kind] !== undefined && after[kind] > (limits[kind] as number))
    .map((kind) => `${kind}: ${after[kind]} > limit ${limits[kind]}`);
}

/** Decides quota changes: limits, holding a workload's total (admission) and releasing it. */
export function decideQuota(command: QuotaCommand, state: QuotaState): QuotaEvent[] {
  switch (command.type) {
    case 'SetLimits':
      if (state.limits && sameJson(state.limits, command.limits)) return [];
      return [{ type: 'QuotaSet', data: { namespace: command.namespace, limits: command.limits } }];
    case 'Hold': {
      if (sameJson(state.held[command.workloadId], command.resources)) return [];
      const over = overLimits(state, command.workloadId, command.resources);
      if (over.length > 0) {
        throw new DomainError(
          'QUOTA.EXCEEDED',
          `Namespace ${command.namespace} quota exceeded: ${over.join('; ')}`,
          {
            namespace: command.namespace,
            over,
          },
        );
      }
      const { namespace, workloadId, resources } = command;
      return [{ type: 'QuotaConsumed', data: { namespace, workloadId, resources } }];
    }
    case 'Release': {
      const held = state.held[command.workloadId];
      if (!held) return [];
      const { namespace, workloadId, reason } = command;
      return [{ type: 'QuotaReleased', data: { namespace, workloadId, resources: held, reason } }];
    }
    default:
      return assertNever(command);
  }
}

/** Folds one quota event. */
export function evolveQuota(state: QuotaState, event: QuotaEvent): QuotaState {
  switch (event.type) {
    case 'QuotaSet':
      return { ...state, limits: event.data.limits };
    case 'QuotaConsumed':
      return { ...state, held: { ...state.held, [event.data.workloadId]: event.data.resources } };
    case 'QuotaReleased': {
      const { [event.data.workloadId]: _gone, ...held } = state.held;
      return { ...state, held };
    }
    default:
      return assertNever(event);
  }
}

/** The quota decider of one namespace. */
export const quotaDecider = { initialState: initialQuotaState, decide: decideQuota, evolve: evolveQuota };
