import {
  HcnError,
  QuotaLimits,
  RecordedHcnEvent,
  deterministicUuid,
  WorkloadSpec,
  admissionStream,
  quotaStream,
  workloadStream,
  z,
} from '@hcn/contracts';
import {
  DomainError,
  WorkloadCommand,
  WorkloadState,
  foldRecorded,
  quotaAmountsOf,
  sameJson,
  workloadDecider,
  workloadStatus,
} from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { randomUUID } from 'node:crypto';
import { Principal, requireNamespace } from '../auth/principal';
import type { HotStreams } from '../common/hot-streams';
import { CommandContext, CommandEngine, toNewEvents } from '@hcn/commands';
import type { Clock } from '../tokens';
import { Logger } from '@nestjs/common';
import { httpCommandContext } from '../common/request-scope';
import type { WorkloadCommandResult } from '../common/command-results';

const logger = new Logger('quota');

/** A workload id path parameter. */
export const workloadIdSchema = z.string().uuid();

/** What a workload command answers: the workload's state after it (its schema: common/command-results.ts). */
export type { WorkloadCommandResult };

/** A workload's folded state and its recorded events. */
export interface LoadedWorkload {
  readonly state: WorkloadState;
  readonly events: RecordedHcnEvent[];
}

/** Reads and folds `workload-<id>`. */
export async function loadWorkload(store: EventStore, workloadId: string): Promise<LoadedWorkload> {
  const events = await store.readStream(workloadStream(workloadId));
  const state = foldRecorded(workloadDecider, events);
  return { state, events };
}

/** Loads a workload the principal may act on; one of another namespace looks exactly like a missing one. */
export async function loadVisibleWorkload(
  store: EventStore,
  principal: Principal,
  workloadId: string,
): Promise<LoadedWorkload> {
  const loaded = await loadWorkload(store, workloadId);
  const notFound = { code: 'WORKLOAD.NOT_FOUND', message: `Workload ${workloadId} does not exist` };
  if (!loaded.state.exists || !loaded.state.spec) throw new HcnError(notFound.code, notFound.message);
  requireNamespace(principal, loaded.state.spec.namespace, notFound);
  return loaded;
}

/** The event context of a user request. */
export function userContext(principal: Principal, clock: Clock, correlationId: string): CommandContext {
  return { ...httpCommandContext({ kind: 'user', id: principal.name }, clock()), correlationId };
}

/**
 * Holds the quota a spec needs (per-replica resources times replicas). QUOTA.EXCEEDED changes nothing but is
 * recorded as an audit fact (`AdmissionDenied` on `admission-<namespace>`) for compliance reports.
 * `defaultLimits` (HCN_DEFAULT_QUOTA) apply when the namespace has no limits of its own.
 */
export function holdQuota(
  hot: HotStreams,
  workloadId: string,
  spec: WorkloadSpec,
  context: CommandContext,
  defaultLimits?: QuotaLimits,
): Promise<void> {
  return holdQuotaAll(hot, spec.namespace, [{ workloadId, spec }], context, defaultLimits);
}

/**
 * Holds the quota of several workloads of one namespace as a whole: all of them, or none and QUOTA.EXCEEDED
 * (recorded as an `AdmissionDenied` of the workload that went over).
 */
export async function holdQuotaAll(
  hot: HotStreams,
  namespace: string,
  workloads: ReadonlyArray<{ workloadId: string; spec: WorkloadSpec }>,
  context: CommandContext,
  defaultLimits?: QuotaLimits,
): Promise<void> {
  const holds = workloads.map(({ workloadId, spec }) => ({ workloadId, resources: quotaAmountsOf(spec) }));
  const command =
    holds.length === 1
      ? { type: 'Hold' as const, namespace, ...holds[0], defaultLimits }
      : { type: 'HoldAll' as const, namespace, holds, defaultLimits };
  try {
    await hot.quotas.handle(quotaStream(namespace), command, context);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'QUOTA.EXCEEDED') {
      const workloadId = error.details.workloadId as string;
      const index = Math.max(
        0,
        holds.findIndex((h) => h.workloadId === workloadId),
      );
      await recordDenial(hot, workloads[index].spec, holds[index], error, context);
    }
    throw error;
  }
}

async function recordDenial(
  hot: HotStreams,
  spec: WorkloadSpec,
  hold: { workloadId: string; resources: ReturnType<typeof quotaAmountsOf> },
  error: DomainError,
  context: CommandContext,
): Promise<void> {
  const over = ((error.details.over as string[] | undefined) ?? []).slice(0, 8);
  const data = { namespace: spec.namespace, workloadName: spec.name, ...hold, over };
  await hot.store
    .append(admissionStream(spec.namespace), toNewEvents([{ type: 'AdmissionDenied', data }], context), 'any')
    .catch((e: Error) => logger.error(`denial not recorded: ${e.message}`));
}

/**
 * The id of a submitted workload: with an idempotency key, the same id for the same key in a namespace (single and
 * batch submissions alike, so either finds the other's repeat); without one, a fresh id.
 */
export function submittedWorkloadId(namespace: string, idempotencyKey: string | null | undefined): string {
  return idempotencyKey ? deterministicUuid(`workload:${namespace}:${idempotencyKey}`) : randomUUID();
}

/**
 * A submission repeating an idempotency key: the same spec answers the existing workload (and writes nothing),
 * another spec or a deleted workload is WORKLOAD.IDEMPOTENCY_CONFLICT.
 */
export function answerRepeated(
  workloadId: string,
  existing: LoadedWorkload,
  spec: WorkloadSpec,
  idempotencyKey: string | null,
): WorkloadCommandResult & { created: false } {
  if (!sameJson(existing.state.spec, spec) || existing.state.deleted) {
    throw new HcnError(
      'WORKLOAD.IDEMPOTENCY_CONFLICT',
      'A different workload was already submitted with this idempotency key',
      { workloadId, idempotencyKey },
    );
  }
  const revision = existing.events.length - 1;
  return { workloadId, status: workloadStatus(existing.state), revision, events: [], created: false };
}

/**
 * Runs one user command on a workload the principal may act on; with `ifRevision` (If-Match) only on the stream at
 * one of those revisions, appended expecting it (else REQUEST.PRECONDITION_FAILED, nothing written).
 */
export async function runWorkloadCommand(
  store: EventStore,
  clock: Clock,
  principal: Principal,
  workloadId: string,
  command: WorkloadCommand,
  ifRevision?: readonly number[],
): Promise<WorkloadCommandResult> {
  await loadVisibleWorkload(store, principal, workloadId);
  const context = userContext(principal, clock, workloadId);
  const workloads = new CommandEngine(store, workloadDecider);
  const handled = await workloads.handle(workloadStream(workloadId), command, context, { ifRevision });
  const { state } = await loadWorkload(store, workloadId);
  return {
    workloadId,
    status: workloadStatus(state),
    revision: handled.revision,
    events: handled.events.map((e) => e.type),
  };
}
