import { WorkloadSpec, workloadSpecSchema } from '@hcn/contracts';
import { fold } from '../decider';
import { specFor } from '../testing';
import type { WorkloadCommand, WorkloadEvent } from './workload.commands';
import { workloadDecider } from './workload.decider';
import { isService, nextRolloutStop, readyReplicas } from './service.rollout';
import type { WorkloadState } from './workload.state';

const W = '00000000-0000-4000-8000-000000000002';
const N1 = '00000000-0000-4000-8000-0000000000c1';
const T0 = '2026-11-22T10:00:00.000Z';
const given = specFor(workloadDecider);
const alloc = (instance: number, attempt = 0): string =>
  `00000000-0000-4000-8000-0000001${String(attempt).padStart(2, '0')}${String(instance).padStart(2, '0')}`;

function model(extra: Record<string, unknown> = {}): WorkloadSpec {
  return workloadSpecSchema.parse({
    name: 'iris',
    type: 'model',
    framework: 'sklearn',
    modelPath: '/srv/models/v1.joblib',
    resources: { cpuMillis: 100, memoryBytes: 1000 },
    ...extra,
  });
}

/** A model's history: commands extend it with what they decide (refusals throw). */
function history(spec: WorkloadSpec) {
  const events: WorkloadEvent[] = [
    { type: 'WorkloadSubmitted', data: { workloadId: W, spec, idempotencyKey: null } },
  ];
  const state = (): WorkloadState => fold(workloadDecider, events);
  const run = (command: WorkloadCommand): WorkloadEvent[] => {
    const result = given(events).when(command);
    if (!('events' in result)) throw result.error;
    events.push(...result.events);
    return result.events;
  };
  return {
    events,
    state,
    run,
    placeWaiting(): void {
      for (const i of state().instances.filter((x) => x.status === 'pending'))
        run({
          type: 'RecordDecision',
          decision: {
            instance: i.instance,
            attempt: i.attempt,
            decision: { hops: [], topK: 5 },
            outcome: {
              kind: 'placed',
              allocationId: alloc(i.instance, i.attempt),
              nodeId: N1,
              domainId: 's',
            },
          },
        });
    },
    start: (allocationId: string, port: number) =>
      run({
        type: 'RecordStarted',
        allocationId,
        nodeId: N1,
        pid: 7,
        at: T0,
        ports: [{ name: 'http', containerPort: port, hostPort: port, protocol: 'tcp' }],
      }),
    ready: (allocationId: string) =>
      run({ type: 'RecordReadiness', allocationId, nodeId: N1, ready: true, reason: '', at: T0 }),
    stopped: (allocationId: string) =>
      run({
        type: 'RecordEnded',
        allocationId,
        nodeId: N1,
        at: T0,
        outcome: 'stopped',
        exitCode: 0,
        signal: null,
        reason: '',
        endedBy: 'SIGTERM',
      }),
  };
}

const stopsOf = (events: readonly WorkloadEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'AllocationStopRequested' ? [e.data.allocationId] : []));

describe('workload decider: models', () => {
  it('accepts a model: it runs as a service, kept running', () => {
    const h = history(model());
    expect(isService(h.state())).toBe(true);
    expect(h.state().spec).toMatchObject({ type: 'model', restartPolicy: { policy: 'always' } });
    expect(
      given([]).when({ type: 'Submit', workloadId: W, spec: model(), idempotencyKey: null }),
    ).toMatchObject({ events: [{ type: 'WorkloadSubmitted' }] });
  });

  it('a replica is ready only once its health probe passes, even without a readinessProbe in the spec', () => {
    const h = history(model());
    h.placeWaiting();
    h.start(alloc(0), 41000);
    expect(h.state().allocations[alloc(0)]).toMatchObject({ status: 'running', ready: false, probed: true });
    expect(readyReplicas(h.state())).toEqual([]);
    expect(h.ready(alloc(0)).map((e) => e.type)).toEqual(['AllocationReady']);
    expect(readyReplicas(h.state())).toMatchObject([
      { instance: 0, ports: [{ name: 'http', hostPort: 41000 }] },
    ]);
  });

  it('a PUT with another model rolls the replicas one at a time, each after the new one is ready', () => {
    const h = history(model({ replicas: 2 }));
    h.placeWaiting();
    for (const i of [0, 1]) {
      h.start(alloc(i), 41000 + i);
      h.ready(alloc(i));
    }
    const update = h.run({
      type: 'Update',
      spec: model({ replicas: 2, modelPath: '/srv/models/v2.joblib' }),
    });
    expect(update.map((e) => e.type)).toEqual(['WorkloadUpdated', 'AllocationStopRequested']);
    expect(stopsOf(update)).toEqual([alloc(0)]);
    for (const i of [0, 1]) {
      h.stopped(alloc(i));
      h.placeWaiting();
      expect(stopsOf(h.start(alloc(i, 1), 42000 + i))).toEqual([]); // not ready yet: the rollout waits
      expect(stopsOf(h.ready(alloc(i, 1)))).toEqual(i === 0 ? [alloc(1)] : []);
    }
    expect(readyReplicas(h.state()).map((r) => [r.instance, r.generation])).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(nextRolloutStop(h.state())).toBeUndefined();
  });

  it('a change of replicas alone adds a replica without touching the others', () => {
    const h = history(model());
    h.placeWaiting();
    h.start(alloc(0), 41000);
    h.ready(alloc(0));
    const scaled = h.run({ type: 'Update', spec: model({ replicas: 2 }) });
    expect(stopsOf(scaled)).toEqual([]);
  });
});
