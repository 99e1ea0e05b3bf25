import { LIVENESS_FAILED, WorkloadSpec, workloadSpecSchema } from '@hcn/contracts';
import { fold } from '../decider';
import { specFor } from '../testing';
import type { WorkloadCommand, WorkloadEvent } from './workload.commands';
import { workloadDecider } from './workload.decider';
import { nextRolloutStop, readyReplicas } from './service.rollout';
import { WorkloadState, workloadStatus } from './workload.state';

const W = '00000000-0000-4000-8000-000000000001';
const N1 = '00000000-0000-4000-8000-0000000000b1';
const N2 = '00000000-0000-4000-8000-0000000000b2';
const T0 = '2026-11-22T10:00:00.000Z';
const given = specFor(workloadDecider);
/** Allocation id of an instance's attempt. */
const alloc = (instance: number, attempt = 0): string =>
  `00000000-0000-4000-8000-0000000${String(attempt).padStart(2, '0')}${String(instance).padStart(3, '0')}`;

function service(extra: Record<string, unknown> = {}): WorkloadSpec {
  return workloadSpecSchema.parse({
    name: 'web',
    type: 'service',
    command: 'node',
    args: ['server.js'],
    ports: [{ name: 'http' }],
    readinessProbe: { http: { path: '/ready', port: 'http' }, intervalSeconds: 1 },
    resources: { cpuMillis: 100, memoryBytes: 1000 },
    ...extra,
  });
}

/** A workload's history that commands extend with what they decide (refusals throw). */
class History {
  readonly events: WorkloadEvent[] = [];
  constructor(spec: WorkloadSpec) {
    this.events.push({ type: 'WorkloadSubmitted', data: { workloadId: W, spec, idempotencyKey: null } });
  }
  get state(): WorkloadState {
    return fold(workloadDecider, this.events);
  }
  run(command: WorkloadCommand): WorkloadEvent[] {
    const result = given(this.events).when(command);
    if (!('events' in result)) throw result.error;
    this.events.push(...result.events);
    return result.events;
  }
  /** The scheduler places every waiting instance (attempt as it waits) on N1. */
  placeWaiting(): void {
    for (const i of this.state.instances.filter((x) => x.status === 'pending')) {
      const placed = { kind: 'placed' as const, allocationId: alloc(i.instance, i.attempt), nodeId: N1 };
      this.run({
        type: 'RecordDecision',
        decision: {
          instance: i.instance,
          attempt: i.attempt,
          decision: { hops: [], topK: 5 },
          outcome: { ...placed, domainId: 'site' },
        },
      });
    }
  }
  start(allocationId: string, port = 31000): WorkloadEvent[] {
    const ports = [{ name: 'http', containerPort: port, hostPort: port, protocol: 'tcp' as const }];
    return this.run({ type: 'RecordStarted', allocationId, nodeId: N1, pid: 7, at: T0, ports });
  }
  ready(allocationId: string, ready = true, nodeId = N1): WorkloadEvent[] {
    return this.run({
      type: 'RecordReadiness',
      allocationId,
      nodeId,
      ready,
      reason: ready ? '' : 'HTTP 503',
      at: T0,
    });
  }
  stopped(allocationId: string): WorkloadEvent[] {
    const end = {
      outcome: 'stopped' as const,
      exitCode: 0,
      signal: null,
      reason: '',
      endedBy: 'SIGTERM' as const,
    };
    return this.run({ type: 'RecordEnded', allocationId, nodeId: N1, at: T0, ...end });
  }
}

const types = (events: readonly WorkloadEvent[]): string[] => events.map((e) => e.type);
const stopsOf = (events: readonly WorkloadEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'AllocationStopRequested' ? [e.data.allocationId] : []));

describe('workload decider: services', () => {
  it('services restart always unless they say otherwise; other workloads never', () => {
    expect(service().restartPolicy.policy).toBe('always');
    expect(service({ restartPolicy: { policy: 'never' } }).restartPolicy.policy).toBe('never');
    expect(service().runtime).toBe('process');
  });

  it('an allocation with a readiness probe is ready only once its probe passes, and not ready again when it fails', () => {
    const h = new History(service());
    h.placeWaiting();
    expect(types(h.start(alloc(0)))).toEqual(['AllocationStarted']);
    expect(h.state.allocations[alloc(0)]).toMatchObject({ status: 'running', ready: false, probed: true });
    expect(readyReplicas(h.state)).toEqual([]);
    expect(h.ready(alloc(0))).toEqual([
      { type: 'AllocationReady', data: { workloadId: W, allocationId: alloc(0), nodeId: N1, at: T0 } },
    ]);
    expect(readyReplicas(h.state)).toMatchObject([
      { instance: 0, nodeId: N1, ports: [{ name: 'http', hostPort: 31000 }] },
    ]);
    expect(h.ready(alloc(0))).toEqual([]); // the same readiness again changes nothing
    expect(h.ready(alloc(0), false)).toMatchObject([
      { type: 'AllocationNotReady', data: { reason: 'HTTP 503' } },
    ]);
    expect(readyReplicas(h.state)).toEqual([]);
    expect(workloadStatus(h.state)).toBe('running'); // not ready, still running
  });

  it('without a readiness probe an allocation is ready once started', () => {
    const h = new History(service({ readinessProbe: undefined }));
    h.placeWaiting();
    h.start(alloc(0));
    expect(h.state.allocations[alloc(0)]).toMatchObject({ ready: true, probed: false });
    expect(readyReplicas(h.state)).toHaveLength(1);
  });

  it('a readiness report is validated like other reports: the allocation must be this workload’s, on that node', () => {
    const h = new History(service());
    h.placeWaiting();
    h.start(alloc(0));
    const report = { type: 'RecordReadiness' as const, ready: true, reason: '', at: T0 };
    expect(given(h.events).when({ ...report, allocationId: alloc(0), nodeId: N2 })).toMatchObject({
      error: { code: 'AUTH.ALLOCATION_NOT_ON_NODE' },
    });
    expect(given(h.events).when({ ...report, allocationId: alloc(9), nodeId: N1 })).toMatchObject({
      error: { code: 'WORKLOAD.ALLOCATION_NOT_FOUND' },
    });
    // a report for an allocation that is not running (placed, or ended) is a no-op
    const placedOnly = new History(service());
    placedOnly.placeWaiting();
    expect(given(placedOnly.events).when({ ...report, allocationId: alloc(0), nodeId: N1 })).toEqual({
      events: [],
    });
  });

  it('a liveness failure ends the allocation failed; the restart policy (always) places a new attempt', () => {
    const h = new History(service({ restartPolicy: { policy: 'always', backoffSeconds: 1 } }));
    h.placeWaiting();
    h.start(alloc(0));
    h.ready(alloc(0));
    const reason = `${LIVENESS_FAILED}: 3 checks failed in a row (HTTP 500)`;
    const end = {
      outcome: 'failed' as const,
      exitCode: null,
      signal: 'SIGTERM',
      reason,
      endedBy: 'SIGTERM' as const,
    };
    expect(types(h.run({ type: 'RecordEnded', allocationId: alloc(0), nodeId: N1, at: T0, ...end }))).toEqual(
      ['AllocationFailed'],
    );
    expect(h.state.allocations[alloc(0)]).toMatchObject({ status: 'failed', ready: false, reason });
    expect(h.state.instances[0]).toMatchObject({
      status: 'pending',
      attempt: 1,
      notBefore: '2026-11-22T10:00:01.000Z',
    });
    expect(readyReplicas(h.state)).toEqual([]);
  });

  it('a rolling update replaces one replica at a time, the next only after the new one is ready', () => {
    const h = new History(service({ replicas: 3 }));
    h.placeWaiting();
    for (const i of [0, 1, 2]) {
      h.start(alloc(i));
      h.ready(alloc(i));
    }
    const update = h.run({ type: 'Update', spec: service({ replicas: 3, args: ['server.js', '--v2'] }) });
    expect(types(update)).toEqual(['WorkloadUpdated', 'AllocationStopRequested']);
    expect(stopsOf(update)).toEqual([alloc(0)]);
    expect(readyReplicas(h.state).map((r) => r.instance)).toEqual([1, 2]); // a stopping replica is no endpoint
    for (const i of [0, 1, 2]) {
      expect(h.stopped(alloc(i))).toHaveLength(1);
      h.placeWaiting();
      expect(h.state.allocations[alloc(i, 1)]).toMatchObject({ generation: 2, status: 'placed' });
      expect(stopsOf(h.start(alloc(i, 1)))).toEqual([]); // started, not ready yet: the rollout waits
      const next = h.ready(alloc(i, 1));
      expect(stopsOf(next)).toEqual(i < 2 ? [alloc(i + 1)] : []);
    }
    expect(readyReplicas(h.state).map((r) => [r.instance, r.generation])).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
    expect(nextRolloutStop(h.state)).toBeUndefined();
  });

  it('the rollout waits while a current replica is unavailable, and replaces outdated unavailable ones first', () => {
    const h = new History(service({ replicas: 2 }));
    h.placeWaiting();
    h.start(alloc(0));
    h.ready(alloc(0));
    h.start(alloc(1)); // never ready: serves no one
    const update = h.run({ type: 'Update', spec: service({ replicas: 2, args: ['v2'] }) });
    expect(stopsOf(update)).toEqual([alloc(1)]); // the unavailable outdated replica goes first
    h.stopped(alloc(1));
    h.placeWaiting();
    h.start(alloc(1, 1));
    expect(nextRolloutStop(h.state)).toBeUndefined(); // its replacement is not ready yet
    expect(stopsOf(h.ready(alloc(1, 1)))).toEqual([alloc(0)]);
  });

  it('scaling down with a spec change stops the extra replicas at once and rolls the rest', () => {
    const h = new History(service({ replicas: 3 }));
    h.placeWaiting();
    for (const i of [0, 1, 2]) {
      h.start(alloc(i));
      h.ready(alloc(i));
    }
    const update = h.run({ type: 'Update', spec: service({ replicas: 2, args: ['v2'] }) });
    expect(stopsOf(update).sort()).toEqual([alloc(0), alloc(2)].sort());
    expect(
      update.find((e) => e.type === 'AllocationStopRequested' && e.data.allocationId === alloc(2))?.data,
    ).toMatchObject({
      reason: 'scaled down',
    });
  });

  it('a service restarts one replica at a time; other workloads are replaced all at once on update', () => {
    const h = new History(service({ replicas: 2, readinessProbe: undefined }));
    h.placeWaiting();
    h.start(alloc(0));
    h.start(alloc(1));
    const restart = h.run({ type: 'RequestRestart', reason: 'user' });
    expect(types(restart)).toEqual(['WorkloadRestartRequested', 'AllocationStopRequested']);
    h.stopped(alloc(0));
    h.placeWaiting();
    expect(stopsOf(h.start(alloc(0, 1)))).toEqual([alloc(1)]); // no probe: ready once started, the next goes

    const process = workloadSpecSchema.parse({
      name: 'job',
      command: 'sleep',
      replicas: 2,
      resources: { cpuMillis: 100, memoryBytes: 1000 },
    });
    const p = new History(process);
    p.placeWaiting();
    p.start(alloc(0));
    p.start(alloc(1));
    expect(p.state.allocations[alloc(0)].ready).toBeUndefined(); // readiness is a service's
    expect(stopsOf(p.run({ type: 'Update', spec: { ...process, args: ['2'] } }))).toHaveLength(2);
  });

  it('no rollout step while the service is stopped or deleted', () => {
    const h = new History(service());
    h.placeWaiting();
    h.start(alloc(0));
    h.ready(alloc(0));
    h.run({ type: 'Update', spec: service({ args: ['v2'] }) });
    h.run({ type: 'RequestStop', reason: 'done' });
    expect(nextRolloutStop(h.state)).toBeUndefined();
  });
});
