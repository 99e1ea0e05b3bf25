import {
  HcnError,
  RecordedEvent,
  WorkloadSpec,
  admissionStream,
  quotaStream,
  workloadStream,
} from '@hcn/contracts';
import {
  DomainError,
  WorkloadCommand,
  WorkloadState,
  foldRecorded,
  quotaAmountsOf,
  workloadDecider,
  workloadStatus,
} from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { Principal, requireNamespace } from '../auth/principal';
import { handleOnStream } from '../common/aggregate';
import type { HotStreams } from '../common/cached-aggregate';
import { CommandContext, requestContext, toNewEvents } from '../common/command-context';
import type { Clock } from '../tokens';

/** What a workload command answers: the workload's state after it. */
export interface WorkloadCommandResult {
  workloadId: string;
  status: string;
  revision: number;
  events: string[];
}

/** A workload's folded state and its recorded events. */
export interface LoadedWorkload {
  readonly state: WorkloadState;
  readonly events: RecordedEvent[];
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
  return { ...requestContext({ kind: 'user', id: principal.name }, clock()), correlationId };
}

/**
 * Holds the quota a spec needs (per-replica resources times replicas). QUOTA.EXCEEDED changes nothing but is
 * recorded as an audit fact (`AdmissionDenied` on `admission-<namespace>`) for compliance reports.
 */
export async function holdQuota(
  hot: HotStreams,
  workloadId: string,
  spec: WorkloadSpec,
  context: CommandContext,
): Promise<void> {
  const resources = quotaAmountsOf(spec);
  try {
    await hot.quotas.handle(
      quotaStream(spec.namespace),
      { type: 'Hold', namespace: spec.namespace, workloadId, resources },
      context,
    );
  } catch (error) {
    if (error instanceof DomainError && error.code === 'QUOTA.EXCEEDED') {
      const over = ((error.details.over as string[] | undefined) ?? []).slice(0, 8);
      const data = { namespace: spec.namespace, workloadId, workloadName: spec.name, resources, over };
      await hot.store
        .append(
          admissionStream(spec.namespace),
          toNewEvents([{ type: 'AdmissionDenied', data }], context),
          'any',
        )
        .catch((e: Error) => console.error(`[quota] denial not recorded: ${e.message}`));
    }
    throw error;
  }
}

/** Runs one user command on a workload the principal may act on. */
export async function runWorkloadCommand(
  store: EventStore,
  clock: Clock,
  principal: Principal,
  workloadId: string,
  command: WorkloadCommand,
): Promise<WorkloadCommandResult> {
  await loadVisibleWorkload(store, principal, workloadId);
  const context = userContext(principal, clock, workloadId);
  const handled = await handleOnStream(store, workloadDecider, workloadStream(workloadId), command, context);
  const { state } = await loadWorkload(store, workloadId);
  return {
    workloadId,
    status: workloadStatus(state),
    revision: handled.revision,
    events: handled.events.map((e) => e.type),
  };
}
