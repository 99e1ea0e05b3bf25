import type { Position, RecordedHcnEvent } from '@hcn/contracts';
import type { EventStore, EventFilter, Subscription } from '@hcn/eventstore';
import type { TaskFleetAgents } from './taskqueue-fleet';

/** Starts and stops the hub recorded for one group of workloads: how many, and when the last was recorded. */
interface Seen {
  count: number;
  lastMs: number;
}

/**
 * Follows the log for AllocationStarted and AllocationStopped (what the hub recorded of the fleet's reports) and
 * counts them by the fleet's group of their workload; remembers how far it has read, where a round's timeline
 * starts.
 */
export class AllocationWatch {
  private readonly started = new Map<string, Seen>();
  private readonly stopped = new Map<string, Seen>();
  private subscription: Subscription | undefined;
  /** Everything up to here has been seen. */
  position: Position | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly agents: TaskFleetAgents,
  ) {}

  start(): void {
    this.subscription = this.store.subscribeToAll({
      filter: { kind: 'eventTypePrefix', prefixes: ['AllocationStarted', 'AllocationStopped'] },
      onEvent: (event) => {
        if (event.type !== 'AllocationStarted' && event.type !== 'AllocationStopped') return;
        const group = this.agents.group(event.data.workloadId) ?? 'other';
        const table = event.type === 'AllocationStarted' ? this.started : this.stopped;
        const seen = table.get(group) ?? { count: 0, lastMs: 0 };
        seen.count++;
        seen.lastMs = Math.max(seen.lastMs, Date.parse(event.recordedAt));
        table.set(group, seen);
      },
      onCheckpoint: (position) => void (this.position = position),
      onError: (error) => console.error(`[bench] watch: ${error.message}`),
    });
  }

  /** AllocationStarted recorded for a group, and when the last was. */
  startedOf(group: string): Seen {
    return this.started.get(group) ?? { count: 0, lastMs: NaN };
  }

  /** AllocationStopped recorded for a group, and when the last was. */
  stoppedOf(group: string): Seen {
    return this.stopped.get(group) ?? { count: 0, lastMs: NaN };
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }
}

/** First and last time (ms after the round began) of a kind of event over a set of workloads, and how many. */
interface Span {
  count: number;
  firstMs: number;
  lastMs: number;
}

/** Where a round's time went, from the events the log recorded (ms after `next` was sent). */
export interface RoundTimeline {
  /** TaskStarted of the new task (`next`'s append). */
  taskStartedMs: number;
  /** TaskInstancesLaunched of the new task: the saga's plan recorded. */
  launchesRecorded: Span;
  /** WorkloadSubmitted of the new task's workloads. */
  submitted: Span;
  /** WorkloadUnschedulable and DelegationRejected of the new task's workloads (no room yet: old instances hold it). */
  unschedulable: number;
  delegationRejected: number;
  /** WorkloadStopRequested of the old task's workloads. */
  stopRequested: Span;
  /** AllocationStopped of the old task's instances. */
  oldStopped: Span;
  /** AllocationPlaced and AllocationStarted of the new task's instances. */
  placed: Span;
  started: Span;
}

const TIMELINE_FILTER: EventFilter = {
  kind: 'eventTypePrefix',
  prefixes: [
    'TaskStarted',
    'TaskInstancesLaunched',
    'WorkloadSubmitted',
    'WorkloadUnschedulable',
    'WorkloadStopRequested',
    'DelegationRejected',
    'AllocationPlaced',
    'AllocationStarted',
    'AllocationStopped',
  ],
};

const PAGE = 5000;

/** The events of the timeline's kinds after `after`. */
async function readSince(store: EventStore, after: Position | undefined): Promise<RecordedHcnEvent[]> {
  const out: RecordedHcnEvent[] = [];
  for (;;) {
    const page = await store.readAll({ after, maxCount: PAGE, filter: TIMELINE_FILTER });
    out.push(...page);
    if (page.length < PAGE) return out;
    after = page[page.length - 1].position;
  }
}

/** WorkloadUnschedulable and DelegationRejected recorded after `after` for the workloads `ids`. */
export async function refusalsOf(
  store: EventStore,
  after: Position | undefined,
  ids: ReadonlySet<string>,
): Promise<{ unschedulable: number; delegationRejected: number }> {
  const counts = { unschedulable: 0, delegationRejected: 0 };
  for (const e of await readSince(store, after)) {
    if (!ids.has((e.data as { workloadId?: string }).workloadId ?? '')) continue;
    if (e.type === 'WorkloadUnschedulable') counts.unschedulable++;
    else if (e.type === 'DelegationRejected') counts.delegationRejected++;
  }
  return counts;
}

/** The workloads a task's rounds launched, by task id (filled as timelines are read). */
export type LaunchedWorkloads = Map<string, Set<string>>;

/**
 * A round's timeline from the log: `next` sent at `t0` for `newTask`, stopping `oldTask` (if any); the workloads
 * each task launched are taken from its TaskInstancesLaunched events (and kept in `launched` for the next round).
 */
export async function roundTimeline(
  store: EventStore,
  after: Position | undefined,
  t0: number,
  newTask: string,
  oldTask: string | undefined,
  launched: LaunchedWorkloads,
): Promise<RoundTimeline> {
  const events = await readSince(store, after);
  const span = (): Span => ({ count: 0, firstMs: NaN, lastMs: NaN });
  const fresh = launched.get(newTask) ?? new Set<string>();
  launched.set(newTask, fresh);
  const old = oldTask ? (launched.get(oldTask) ?? new Set<string>()) : new Set<string>();
  const t: RoundTimeline = {
    taskStartedMs: NaN,
    launchesRecorded: span(),
    submitted: span(),
    unschedulable: 0,
    delegationRejected: 0,
    stopRequested: span(),
    oldStopped: span(),
    placed: span(),
    started: span(),
  };
  const mark = (s: Span, at: number, n = 1) => {
    s.count += n;
    if (Number.isNaN(s.firstMs) || at < s.firstMs) s.firstMs = at;
    if (Number.isNaN(s.lastMs) || at > s.lastMs) s.lastMs = at;
  };
  for (const e of events) {
    const at = Date.parse(e.recordedAt) - t0;
    const data = e.data as { taskId?: string; workloadId?: string };
    if (e.type === 'TaskStarted' && data.taskId === newTask) t.taskStartedMs = at;
    else if (e.type === 'TaskInstancesLaunched' && data.taskId === newTask) {
      const { launches } = e.data as { launches: Array<{ workloadId: string }> };
      launches.forEach((l) => fresh.add(l.workloadId));
      mark(t.launchesRecorded, at, launches.length);
    }
  }
  for (const e of events) {
    const at = Date.parse(e.recordedAt) - t0;
    const id = (e.data as { workloadId?: string }).workloadId;
    if (!id) continue;
    if (fresh.has(id)) {
      if (e.type === 'WorkloadSubmitted') mark(t.submitted, at);
      else if (e.type === 'WorkloadUnschedulable') t.unschedulable++;
      else if (e.type === 'DelegationRejected') t.delegationRejected++;
      else if (e.type === 'AllocationPlaced') mark(t.placed, at);
      else if (e.type === 'AllocationStarted') mark(t.started, at);
    } else if (old.has(id)) {
      if (e.type === 'WorkloadStopRequested') mark(t.stopRequested, at);
      else if (e.type === 'AllocationStopped') mark(t.oldStopped, at);
    }
  }
  if (oldTask) launched.delete(oldTask);
  return t;
}
