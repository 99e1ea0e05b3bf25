import { HcnEvent, RecordedHcnEvent, WorkloadSpec, workloadSpecSchema } from '@hcn/contracts';
import { RecordedWorkloadEvent, isWorkloadEvent } from '../projections/workloads.fold';

/** The workload of these events. */
export const W = '00000000-0000-4000-8000-000000000001';
/** The node its allocations run on. */
export const N1 = '00000000-0000-4000-8000-0000000000b1';
/** The id of allocation `n`. */
export const alloc = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** An instant `s` seconds into the spec's day. */
export const T = (s: number): string => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();

/** A workload spec with defaults applied. */
export function spec(extra: Record<string, unknown> = {}): WorkloadSpec {
  return workloadSpecSchema.parse({
    name: 'job',
    command: 'sleep',
    resources: { cpuMillis: 500, memoryBytes: 1000 },
    ...extra,
  });
}

/** A process service with a readiness probe, defaults applied. */
export function service(extra: Record<string, unknown> = {}): WorkloadSpec {
  return spec({
    type: 'service',
    command: 'server',
    ports: [{ name: 'http' }],
    readinessProbe: { http: { port: 'http' } },
    ...extra,
  });
}

/** Builders of the workload events. */
export const ev = {
  submitted: (s = spec()): HcnEvent => ({
    type: 'WorkloadSubmitted',
    data: { workloadId: W, spec: s, idempotencyKey: null },
  }),
  placed: (a: number, instance = 0, attempt = 0, generation = 1): HcnEvent => ({
    type: 'AllocationPlaced',
    data: {
      workloadId: W,
      allocationId: alloc(a),
      instance,
      attempt,
      generation,
      nodeId: N1,
      domainId: 'site-a',
      resources: { cpuMillis: 500, memoryBytes: 1000, accelerators: 0 },
    },
  }),
  started: (a: number): HcnEvent => ({
    type: 'AllocationStarted',
    data: { workloadId: W, allocationId: alloc(a), nodeId: N1, pid: 100 + a, startedAt: T(1) },
  }),
  ready: (a: number): HcnEvent => ({
    type: 'AllocationReady',
    data: { workloadId: W, allocationId: alloc(a), nodeId: N1, at: T(1) },
  }),
  notReady: (a: number): HcnEvent => ({
    type: 'AllocationNotReady',
    data: { workloadId: W, allocationId: alloc(a), nodeId: N1, reason: 'HTTP 503', at: T(1) },
  }),
  completed: (a: number): HcnEvent => ({
    type: 'AllocationCompleted',
    data: { workloadId: W, allocationId: alloc(a), nodeId: N1, exitCode: 0, endedAt: T(2) },
  }),
  failed: (a: number): HcnEvent => ({
    type: 'AllocationFailed',
    data: {
      workloadId: W,
      allocationId: alloc(a),
      nodeId: N1,
      reason: 'exit 1',
      exitCode: 1,
      signal: null,
      endedAt: T(2),
    },
  }),
  lost: (a: number): HcnEvent => ({
    type: 'AllocationLost',
    data: { workloadId: W, allocationId: alloc(a), nodeId: N1, reason: 'node offline', lostAt: T(3) },
  }),
  stopRequested: (a: number): HcnEvent => ({
    type: 'AllocationStopRequested',
    data: { workloadId: W, allocationId: alloc(a), nodeId: N1, gracePeriodSeconds: 5, reason: 'spec' },
  }),
  stopped: (a: number): HcnEvent => ({
    type: 'AllocationStopped',
    data: {
      workloadId: W,
      allocationId: alloc(a),
      nodeId: N1,
      endedBy: 'SIGTERM',
      exitCode: null,
      signal: 'SIGTERM',
      endedAt: T(4),
    },
  }),
  unschedulable: (instance = 0, attempt = 0): HcnEvent => ({
    type: 'WorkloadUnschedulable',
    data: { workloadId: W, instance, attempt, reasons: { 'SCHEDULE.NO_CAPACITY': 2 }, detail: 'full' },
  }),
  stop: (): HcnEvent => ({ type: 'WorkloadStopRequested', data: { workloadId: W, reason: 'spec' } }),
  restart: (): HcnEvent => ({ type: 'WorkloadRestartRequested', data: { workloadId: W, reason: 'spec' } }),
  updated: (s: WorkloadSpec, generation: number): HcnEvent => ({
    type: 'WorkloadUpdated',
    data: { workloadId: W, generation, spec: s },
  }),
  deleted: (): HcnEvent => ({ type: 'WorkloadDeleted', data: { workloadId: W, reason: 'spec' } }),
};

/** The events as recorded in one workload stream (revision i, recorded at T(i)). */
export function recorded(events: readonly HcnEvent[]): RecordedWorkloadEvent[] {
  return events
    .map((event, revision): RecordedHcnEvent => ({
      ...event,
      eventId: alloc(9000 + revision),
      streamId: `workload-${W}`,
      revision,
      position: { commit: BigInt(revision), prepare: BigInt(revision) },
      recordedAt: T(revision),
      metadata: {
        correlationId: W,
        causationId: W,
        actor: { kind: 'system', id: 'spec' },
        occurredAt: T(revision),
        schemaVersion: 1,
      },
    }))
    .filter(isWorkloadEvent);
}

/** Event sequences through the workload lifecycle (restarts, stops, updates, deletion). */
export const SCENARIOS: Record<string, HcnEvent[]> = {
  'two replicas: one completes, one fails, retries by policy, then fails for good': [
    ev.submitted(spec({ replicas: 2, restartPolicy: { policy: 'on-failure', maxRetries: 1 } })),
    ev.placed(1, 0),
    ev.placed(2, 1),
    ev.started(1),
    ev.started(2),
    ev.completed(1),
    ev.failed(2),
    ev.unschedulable(1, 1),
    ev.placed(3, 1, 1),
    ev.started(3),
    ev.failed(3),
  ],
  'a stop ends waiting instances and the running one': [
    ev.submitted(spec({ replicas: 2 })),
    ev.placed(1, 0),
    ev.started(1),
    ev.unschedulable(1, 0),
    ev.stop(),
    ev.stopRequested(1),
    ev.stopped(1),
  ],
  'always restarts after a loss; a restart request replaces the live allocation': [
    ev.submitted(spec({ restartPolicy: { policy: 'always' } })),
    ev.placed(1),
    ev.started(1),
    ev.lost(1),
    ev.placed(2, 0, 1),
    ev.started(2),
    ev.restart(),
    ev.stopRequested(2),
    ev.stopped(2),
    ev.placed(3, 0, 2),
  ],
  'an update replaces on a spec change; a scale-down keeps the instance until it ends': [
    ev.submitted(spec({ replicas: 2 })),
    ev.placed(1, 0),
    ev.placed(2, 1),
    ev.started(1),
    ev.started(2),
    ev.updated(spec({ replicas: 1 }), 2),
    ev.stopRequested(2),
    ev.stopped(2),
    ev.updated(spec({ replicas: 1, command: 'true' }), 3),
    ev.stopRequested(1),
    ev.stopped(1),
    ev.placed(3, 0, 1, 3),
    ev.completed(3),
  ],
  'a restart after completion, then deletion': [
    ev.submitted(),
    ev.placed(1),
    ev.started(1),
    ev.completed(1),
    ev.restart(),
    ev.unschedulable(0, 1),
    ev.deleted(),
  ],
  'a service: ready after its probe, not ready, ready again; a rolling update; a liveness failure restarts it':
    [
      ev.submitted(service()),
      ev.placed(1, 0),
      ev.placed(2, 1),
      ev.started(1),
      ev.started(2),
      ev.ready(1),
      ev.notReady(1),
      ev.ready(1),
      ev.ready(2),
      ev.updated(service({ args: ['v2'] }), 2),
      ev.stopRequested(1),
      ev.stopped(1),
      ev.placed(3, 0, 1, 2),
      ev.started(3),
      ev.ready(3),
      ev.stopRequested(2),
      ev.stopped(2),
      ev.placed(4, 1, 1, 2),
      ev.started(4),
      ev.failed(4),
      ev.placed(5, 1, 2, 2),
    ],
};
