import type { EventDataOf, QuotaAmounts, QuotaLimits } from '@hcn/contracts';
import { sameJson } from '../equality';
import { EventTypes, defineDecider } from '../decider';
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
function undeclaredDeviceAmounts(
  limits: QuotaLimits | null,
  namespace: string,
  held: QuotaAmounts,
): DomainError | undefined {
  if (!limits || held.accelerators === 0) return undefined;
  const missing = [
    limits.acceleratorMemoryBytes !== undefined && held.acceleratorMemoryBytes === 0
      ? 'memoryPerDeviceBytes'
      : null,
    limits.computeUnits !== undefined && held.computeUnits === 0 ? 'computeUnits' : null,
  ].filter((m): m is string => m !== null);
  if (missing.length === 0) return undefined;
  return new DomainError(
    'QUOTA.DEVICE_AMOUNT_UNDECLARED',
    `Namespace ${namespace} limits accelerator amounts: the device request must name ${missing.join(' and ')}`,
    { namespace, missing },
  );
}

/** One workload's holding as a command asks for it. */
interface Holding {
  readonly namespace: string;
  readonly workloadId: string;
  readonly resources: QuotaAmounts;
  readonly defaultLimits?: QuotaLimits | null;
}

/** Why admitting one workload's total is refused (device amounts undeclared, QUOTA.EXCEEDED); none if held already. */
function holdRefusal(state: QuotaState, holding: Holding): DomainError | undefined {
  const { namespace, workloadId, resources } = holding;
  if (sameJson(state.held.get(workloadId), resources)) return undefined;
  const limits = effectiveQuotaLimits(state, holding.defaultLimits);
  const over = overLimits(state, limits, workloadId, resources);
  const undeclared = undeclaredDeviceAmounts(limits, namespace, resources);
  if (undeclared || over.length === 0) return undeclared;
  const source = state.limits ? '' : ' (the default quota)';
  return new DomainError(
    'QUOTA.EXCEEDED',
    `Namespace ${namespace} quota${source} exceeded: ${over.join('; ')}`,
    { namespace, workloadId, over },
  );
}

/** An admitted holding: a QuotaConsumed, none when the workload already holds exactly that. */
function hold(state: QuotaState, { namespace, workloadId, resources }: Holding): QuotaEvent[] {
  if (sameJson(state.held.get(workloadId), resources)) return [];
  return [{ type: 'QuotaConsumed', data: { namespace, workloadId, resources } }];
}

/** The holdings of a batch, each with the state the ones before it leave. */
function* batchHoldings(
  state: QuotaState,
  command: QuotaCommand & { type: 'HoldAll' },
): Generator<{ state: QuotaState; holding: Holding }> {
  const { namespace, defaultLimits } = command;
  for (const { workloadId, resources } of command.holds) {
    const holding = { namespace, workloadId, resources, defaultLimits };
    yield { state, holding };
    state = hold(state, holding).reduce(evolveQuota, state);
  }
}

/** A batch is admitted as a whole: the first holding refused refuses it. */
function holdAllRefusal(
  state: QuotaState,
  command: QuotaCommand & { type: 'HoldAll' },
): DomainError | undefined {
  for (const at of batchHoldings(state, command)) {
    const refusal = holdRefusal(at.state, at.holding);
    if (refusal) return refusal;
  }
  return undefined;
}

/** Why a quota command is refused: only admission (a holding, or a batch's) can be. */
export function validateQuota(command: QuotaCommand, state: QuotaState): DomainError | undefined {
  switch (command.type) {
    case 'SetLimits':
    case 'Release':
      return undefined;
    case 'Hold':
      return holdRefusal(state, command);
    case 'HoldAll':
      return holdAllRefusal(state, command);
    default:
      return assertNever(command);
  }
}

/** Decides accepted quota changes: limits, holding a workload's total (alone or a batch's) and releasing it. */
function decideAcceptedQuota(command: QuotaCommand, state: QuotaState): QuotaEvent[] {
  switch (command.type) {
    case 'SetLimits':
      if (state.limits && sameJson(state.limits, command.limits)) return [];
      return [{ type: 'QuotaSet', data: { namespace: command.namespace, limits: command.limits } }];
    case 'Hold':
      return hold(state, command);
    case 'HoldAll':
      return [...batchHoldings(state, command)].flatMap((at) => hold(at.state, at.holding));
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

/** The event types of a quota stream. */
const QUOTA_EVENT_TYPES: EventTypes<QuotaEvent> = {
  QuotaSet: true,
  QuotaConsumed: true,
  QuotaReleased: true,
};

/** The quota decider of one namespace. */
export const quotaDecider = defineDecider({
  initialState: initialQuotaState,
  eventTypes: QUOTA_EVENT_TYPES,
  validate: validateQuota,
  decideAccepted: decideAcceptedQuota,
  evolve: evolveQuota,
});

/** Decides quota changes; throws DomainError when admission is refused. */
export const decideQuota = quotaDecider.decide;
