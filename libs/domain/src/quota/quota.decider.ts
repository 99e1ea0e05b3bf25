import type { EventDataOf, QuotaAmounts, QuotaLimits } from '@hcn/contracts';
import { sameJson } from '../equality';
import { DomainError, assertNever } from '../errors';
import { BucketMap } from '../bucket-map';
import { NO_QUOTA_AMOUNTS, QUOTA_KINDS, retotal } from '../resources';

/** Commands on a namespace's quota; a hold's `defaultLimits` apply when the namespace has none of its own. */
export type QuotaCommand =
  | { type: 'SetLimits'; namespace: string; limits: QuotaLimits }
  | {
      type: 'Hold';
      namespace: string;
      workloadId: string;
      resources: QuotaAmounts;
      defaultLimits?: QuotaLimits | null;
    }
  | {
      type: 'HoldAll';
      namespace: string;
      holds: ReadonlyArray<{ workloadId: string; resources: QuotaAmounts }>;
      defaultLimits?: QuotaLimits | null;
    }
  | { type: 'Release'; namespace: string; workloadId: string; reason: string };

/** Events of a namespace's quota stream. */
export type QuotaEvent =
  | { type: 'QuotaSet'; data: EventDataOf<'QuotaSet'> }
  | { type: 'QuotaConsumed'; data: EventDataOf<'QuotaConsumed'> }
  | { type: 'QuotaReleased'; data: EventDataOf<'QuotaReleased'> };

/** Limits of a namespace and what each workload holds against them. */
export interface QuotaState {
  readonly limits: QuotaLimits | null;
  /** What each workload holds, by workload id (updates share structure: a namespace may hold many). */
  readonly held: BucketMap<QuotaAmounts>;
  /** The sum of what is held, kept as holdings change (so admission does not add up every holding). */
  readonly total: QuotaAmounts;
}

/** A namespace without limits or holdings. */
export const initialQuotaState: QuotaState = {
  limits: null,
  held: BucketMap.empty(),
  total: NO_QUOTA_AMOUNTS,
};

/** Total held in a namespace, plus the number of workloads holding. */
export function quotaUsed(state: QuotaState): QuotaAmounts & { workloads: number } {
  return { ...state.total, workloads: state.held.size };
}

/** The running total after `before` is given back and `after` taken (compute units to a millionth, as they add up). */
function retotalHeld(total: QuotaAmounts, before: QuotaAmounts | undefined, after: QuotaAmounts | undefined) {
  const next = retotal(QUOTA_KINDS, total, before, after);
  return { ...next, computeUnits: Math.round(next.computeUnits * 1e6) / 1e6 };
}

/** The limits admission checks: the namespace's own (an empty set included), else the configured default. */
export function effectiveQuotaLimits(
  state: QuotaState,
  defaultLimits: QuotaLimits | null | undefined,
): QuotaLimits | null {
  return state.limits ?? defaultLimits ?? null;
}

function overLimits(
  state: QuotaState,
  limits: QuotaLimits | null,
  workloadId: string,
  resources: QuotaAmounts,
): string[] {
  if (!limits) return [];
  const holders = state.held.size + (state.held.has(workloadId) ? 0 : 1);
  const after = { ...retotalHeld(state.total, state.held.get(workloadId), resources), workloads: holders };
  const kinds = [...QUOTA_KINDS, 'workloads'] as const;
  return kinds
    .filter((kind) => limits[kind] !== undefined && after[kind] > (limits[kind] as number))
    .map((kind) => `${kind}: ${after[kind]} > limit ${limits[kind]}`);
}

/**
 * A namespace limiting accelerator memory or compute units admits device workloads only when their request
 * names that amount; otherwise what they would take is unknown and could not be counted.
 */
function requireDeclaredDeviceAmounts(
  limits: QuotaLimits | null,
  namespace: string,
  held: QuotaAmounts,
): void {
  if (!limits || held.accelerators === 0) return;
  const missing = [
    limits.acceleratorMemoryBytes !== undefined && held.acceleratorMemoryBytes === 0
      ? 'memoryPerDeviceBytes'
      : null,
    limits.computeUnits !== undefined && held.computeUnits === 0 ? 'computeUnits' : null,
  ].filter((m): m is string => m !== null);
  if (missing.length > 0) {
    throw new DomainError(
      'QUOTA.DEVICE_AMOUNT_UNDECLARED',
      `Namespace ${namespace} limits accelerator amounts: the device request must name ${missing.join(' and ')}`,
      { namespace, missing },
    );
  }
}

/** Admission of one workload's total: a QuotaConsumed, none when it already holds exactly that, or QUOTA.EXCEEDED. */
function hold(
  state: QuotaState,
  namespace: string,
  workloadId: string,
  resources: QuotaAmounts,
  defaultLimits: QuotaLimits | null | undefined,
): QuotaEvent[] {
  if (sameJson(state.held.get(workloadId), resources)) return [];
  const limits = effectiveQuotaLimits(state, defaultLimits);
  requireDeclaredDeviceAmounts(limits, namespace, resources);
  const over = overLimits(state, limits, workloadId, resources);
  if (over.length > 0) {
    const source = state.limits ? '' : ' (the default quota)';
    throw new DomainError(
      'QUOTA.EXCEEDED',
      `Namespace ${namespace} quota${source} exceeded: ${over.join('; ')}`,
      { namespace, workloadId, over },
    );
  }
  return [{ type: 'QuotaConsumed', data: { namespace, workloadId, resources } }];
}

/** Admission of a batch as a whole: every holding in order on the state the ones before it leave, or none. */
function holdAll(state: QuotaState, command: QuotaCommand & { type: 'HoldAll' }): QuotaEvent[] {
  const events: QuotaEvent[] = [];
  let after = state;
  for (const { workloadId, resources } of command.holds) {
    const decided = hold(after, command.namespace, workloadId, resources, command.defaultLimits);
    after = decided.reduce(evolveQuota, after);
    events.push(...decided);
  }
  return events;
}

/** Decides quota changes: limits, holding a workload's total (admission, alone or a batch's) and releasing it. */
export function decideQuota(command: QuotaCommand, state: QuotaState): QuotaEvent[] {
  switch (command.type) {
    case 'SetLimits':
      if (state.limits && sameJson(state.limits, command.limits)) return [];
      return [{ type: 'QuotaSet', data: { namespace: command.namespace, limits: command.limits } }];
    case 'Hold':
      return hold(state, command.namespace, command.workloadId, command.resources, command.defaultLimits);
    case 'HoldAll':
      return holdAll(state, command);
    case 'Release': {
      const held = state.held.get(command.workloadId);
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
    case 'QuotaConsumed': {
      const { workloadId, resources } = event.data;
      const total = retotalHeld(state.total, state.held.get(workloadId), resources);
      return { ...state, held: state.held.set(workloadId, resources), total };
    }
    case 'QuotaReleased': {
      const before = state.held.get(event.data.workloadId);
      if (!before) return state;
      const total = retotalHeld(state.total, before, undefined);
      return { ...state, held: state.held.delete(event.data.workloadId), total };
    }
    default:
      return assertNever(event);
  }
}

/** The quota decider of one namespace. */
export const quotaDecider = { initialState: initialQuotaState, decide: decideQuota, evolve: evolveQuota };
