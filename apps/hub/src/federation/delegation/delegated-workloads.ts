import { CommandEngine, requestContext } from '@hcn/commands';
import { DelegatedFrom, HcnError, RecordedHcnEvent, isEventOf, workloadStream } from '@hcn/contracts';
import { WorkloadState, foldRecorded, workloadDecider } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import type { Clock } from '../../tokens';
import { siteActor } from '../site-registry';

/** A delegated workload of this site as its stream holds it: where it came from, its state and its last event. */
export interface DelegatedWorkload {
  readonly from: DelegatedFrom;
  readonly state: WorkloadState;
  readonly last: RecordedHcnEvent;
}

/** The workload `workloadId` of this site folded up to `revision` (all of it when absent), if another site delegated it. */
export async function loadDelegated(
  store: EventStore,
  workloadId: string,
  revision?: number,
): Promise<DelegatedWorkload | undefined> {
  const events = await store.readStream(workloadStream(workloadId));
  const upTo = revision === undefined ? events : events.filter((e) => e.revision <= revision);
  const first = upTo[0];
  const last = upTo.at(-1);
  if (!isEventOf(first, 'WorkloadSubmitted') || !first.data.delegatedFrom || !last) return undefined;
  return { from: first.data.delegatedFrom, state: foldRecorded(workloadDecider, upTo), last };
}

/**
 * Stops a delegated workload because the site that delegated it asked (a stop, or a cancel after it fell back):
 * RequestStop through the workload decider, recorded as that site's act (nothing when it is stopped already).
 */
export async function stopDelegated(
  store: EventStore,
  clock: Clock,
  workloadId: string,
  from: DelegatedFrom,
  reason: string,
): Promise<void> {
  const engine = new CommandEngine(store, workloadDecider);
  const context = { ...requestContext(siteActor(from.siteId), clock()), correlationId: workloadId };
  try {
    await engine.handle(workloadStream(workloadId), { type: 'RequestStop', reason }, context);
  } catch (error) {
    // deleted meanwhile: nothing runs any more
    if (!(error instanceof HcnError && error.code === 'WORKLOAD.DELETED')) throw error;
  }
}
