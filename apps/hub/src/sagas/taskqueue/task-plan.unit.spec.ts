import { taskQueueDefinitionSchema, taskSpecSchema } from '@hcn/contracts';
import {
  InstanceStatus,
  TaskQueueEvent,
  WorkloadState,
  initialWorkloadState,
  taskQueueDecider,
} from '@hcn/domain';
import { PlanInputs, launchKey, launchWorkloadId, planQueue } from './task-plan';

const queueId = '00000000-0000-4000-8000-000000000001';
const taskId = '00000000-0000-4000-8000-0000000000a1';
const [n1, n2] = ['00000000-0000-4000-8000-0000000000f1', '00000000-0000-4000-8000-0000000000f2'];
const at = '2026-11-26T10:00:00.000Z';
const startMs = Date.parse(at);
const definition = taskQueueDefinitionSchema.parse({ name: 'q', namespace: 'lab' });
const spec = taskSpecSchema.parse({ name: 't', command: 'w', deadlineSeconds: 60 });
const w1 = launchWorkloadId('lab', launchKey(queueId, taskId, 1, n1, 1));

function queueWith(...more: TaskQueueEvent[]) {
  const events: TaskQueueEvent[] = [
    { type: 'TaskQueueCreated', data: { queueId, definition } },
    { type: 'TaskAdded', data: { queueId, taskId, spec } },
    { type: 'TaskStarted', data: { queueId, taskId, round: 1, cause: 'next', at } },
    ...more,
  ];
  return events.reduce(taskQueueDecider.evolve, taskQueueDecider.initialState);
}
const launchedOnN1: TaskQueueEvent = {
  type: 'TaskInstancesLaunched',
  data: { queueId, taskId, round: 1, launches: [{ nodeId: n1, workloadId: w1, instances: 2, launch: 1 }] },
};

/** A workload whose instances stand as given (its allocations active while placed or running). */
function workload(statuses: InstanceStatus[], desired: 'running' | 'stopped' = 'running'): WorkloadState {
  const allocations = Object.fromEntries(
    statuses.map((status, i) => [
      `a${i}`,
      {
        allocationId: `a${i}`,
        instance: i,
        attempt: 0,
        generation: 1,
        nodeId: n1,
        domainId: 'd',
        resources: { cpuMillis: 1000, memoryBytes: 1, accelerators: 0 },
        status: status === 'pending' ? 'placed' : status === 'unschedulable' ? 'lost' : status,
      } as const,
    ]),
  );
  const instances = statuses.map((status, i) => ({ instance: i, attempt: 0, status, retries: 0 }));
  return { ...initialWorkloadState, exists: true, workloadId: w1, desired, instances, allocations };
}

const plan = (over: Partial<PlanInputs>) =>
  planQueue({
    queue: queueWith(),
    workload: () => undefined,
    eligible: [],
    retired: [],
    nowMs: startMs,
    ...over,
  });

describe('planQueue', () => {
  it('launches on every eligible node without instances, floor(cores x instancesPerCpu) each', () => {
    const result = plan({
      eligible: [
        { nodeId: n1, cpuCores: 2 },
        { nodeId: n2, cpuCores: 4 },
      ],
    });
    expect(result.launch.map((l) => [l.nodeId, l.instances, l.launch])).toEqual([
      [n1, 2, 1],
      [n2, 4, 1],
    ]);
    expect(result.launch[0].workloadId).toBe(w1);
  });

  it.each<[string, InstanceStatus[] | undefined, { launch: number; submit: number }]>([
    ['a recorded launch not submitted yet is submitted (again)', undefined, { launch: 0, submit: 1 }],
    ['a node running its instances gets nothing more', ['running', 'running'], { launch: 0, submit: 0 }],
    [
      'a node whose instances were all lost with it gets a second launch',
      ['lost', 'lost'],
      { launch: 1, submit: 0 },
    ],
    ['instances that completed are not run again', ['completed', 'lost'], { launch: 0, submit: 0 }],
  ])('%s', (...[_, statuses, expected]) => {
    const result = plan({
      queue: queueWith(launchedOnN1),
      workload: () => (statuses ? workload(statuses) : undefined),
      eligible: [{ nodeId: n1, cpuCores: 2 }],
    });
    expect({ launch: result.launch.length, submit: result.submit.length }).toEqual(expected);
    if (expected.launch) expect(result.launch[0].launch).toBe(2);
  });

  it.each<[string, InstanceStatus[], { fail?: string; drained: boolean }]>([
    ['still running', ['running', 'completed'], { drained: false }],
    ['all exited 0', ['completed', 'completed'], { drained: true }],
    ['one failed', ['completed', 'failed'], { fail: '1 of 2 instances failed', drained: false }],
  ])('outcome when %s', (...[_, statuses, expected]) => {
    const result = plan({ queue: queueWith(launchedOnN1), workload: () => workload(statuses) });
    expect({ fail: result.fail, drained: result.drained }).toEqual({ fail: undefined, ...expected });
  });

  it('stops retired workloads that still run, not those already stopping or ended', () => {
    const states: Record<string, WorkloadState> = {
      old: workload(['running']),
      stopping: workload(['running'], 'stopped'),
      done: workload(['completed']),
    };
    const result = plan({ workload: (id) => states[id], retired: ['old', 'stopping', 'done', 'unknown'] });
    expect(result.stop).toEqual(['old']);
  });

  it('a paused queue launches nothing; the deadline passes after deadlineSeconds', () => {
    const paused = queueWith({ type: 'TaskQueuePaused', data: { queueId, reason: 'x' } });
    expect(plan({ queue: paused, eligible: [{ nodeId: n1, cpuCores: 2 }] }).launch).toEqual([]);
    expect(plan({ nowMs: startMs + 59_000 }).deadlinePassed).toBe(false);
    expect(plan({ nowMs: startMs + 60_000 }).deadlinePassed).toBe(true);
  });
});
