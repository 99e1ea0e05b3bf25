import { taskQueueDefinitionSchema, taskSpecSchema, workloadSpecSchema } from '@hcn/contracts';
import { specFor } from '../testing';
import { TaskQueueEvent, taskQueueDecider } from './taskqueue.decider';
import { instancesOnNode, taskQueueStatus } from './taskqueue.state';
import { taskWorkloadSpec } from './task-workload';

const queueId = '00000000-0000-4000-8000-000000000001';
const t1 = '00000000-0000-4000-8000-0000000000a1';
const t2 = '00000000-0000-4000-8000-0000000000a2';
const node = '00000000-0000-4000-8000-0000000000f1';
const wl = '00000000-0000-4000-8000-0000000000b1';
const at = '2026-11-26T10:00:00.000Z';
const definition = taskQueueDefinitionSchema.parse({ name: 'hea', namespace: 'lab' });
const spec = (name: string) =>
  taskSpecSchema.parse({ name, image: 'hea:1', inputRedis: 'redis://r:6379', inputQueue: `${name}:in` });
const given = specFor(taskQueueDecider);

const created: TaskQueueEvent = { type: 'TaskQueueCreated', data: { queueId, definition } };
const added = (taskId: string, name: string): TaskQueueEvent => ({
  type: 'TaskAdded',
  data: { queueId, taskId, spec: spec(name) },
});
const startedT1: TaskQueueEvent = {
  type: 'TaskStarted',
  data: { queueId, taskId: t1, round: 1, cause: 'next', at },
};
const twoTasks = [created, added(t1, 'first'), added(t2, 'second')];
const state = (events: TaskQueueEvent[]) =>
  events.reduce(taskQueueDecider.evolve, taskQueueDecider.initialState);

describe('task queue decider', () => {
  it('adds tasks pending; a queue starts nothing by itself (GridCore: next starts the first)', () => {
    const s = state(twoTasks);
    expect(s.tasks.map((t) => t.status)).toEqual(['pending', 'pending']);
    expect(taskQueueStatus(s)).toBe('idle');
  });

  it('next starts the first pending task, then completes it and starts the second', () => {
    expect(given(twoTasks).when({ type: 'Advance', cause: 'next', reason: 'by hand', at })).toEqual({
      events: [startedT1],
    });
    expect(
      given([...twoTasks, startedT1]).when({ type: 'Advance', cause: 'next', reason: 'by hand', at }),
    ).toEqual({
      events: [
        { type: 'TaskCompleted', data: { queueId, taskId: t1, cause: 'next', reason: 'by hand', at } },
        { type: 'TaskStarted', data: { queueId, taskId: t2, round: 1, cause: 'next', at } },
      ],
    });
  });

  it.each<[string, TaskQueueEvent[], string]>([
    ['nothing to advance to', [created], 'TASKQUEUE.NOTHING_PENDING'],
    [
      'a paused queue',
      [...twoTasks, { type: 'TaskQueuePaused', data: { queueId, reason: 'x' } }],
      'TASKQUEUE.PAUSED',
    ],
    ['an unknown queue', [], 'TASKQUEUE.NOT_FOUND'],
    [
      'a deleted queue',
      [created, { type: 'TaskQueueDeleted', data: { queueId, reason: 'x', at } }],
      'TASKQUEUE.DELETED',
    ],
  ])('refuses next on %s', (_, events, code) => {
    expect(given(events).when({ type: 'Advance', cause: 'next', reason: 'x', at })).toMatchObject({
      error: { code },
    });
  });

  it('an auto-advance for a task that is no longer running is stale (two hubs racing)', () => {
    const events = [...twoTasks, startedT1];
    const command = {
      type: 'Advance' as const,
      cause: 'auto' as const,
      reason: 'done',
      at,
      expectCurrent: t2,
    };
    expect(given(events).when(command)).toMatchObject({ error: { code: 'TASKQUEUE.STALE' } });
  });

  it('refuses a second task of the same name and a foreign id reused with another spec', () => {
    expect(
      given(twoTasks).when({ type: 'AddTask', taskId: t2.replace('a2', 'a3'), spec: spec('first') }),
    ).toMatchObject({
      error: { code: 'TASKQUEUE.TASK_NAME_TAKEN' },
    });
    expect(given(twoTasks).when({ type: 'AddTask', taskId: t1, spec: spec('first') })).toEqual({
      events: [],
    });
  });

  it('records launches once per node and launch number; a stale round is refused', () => {
    const launch = { nodeId: node, workloadId: wl, instances: 2, launch: 1 };
    const events = [...twoTasks, startedT1];
    const record = { type: 'RecordLaunches' as const, taskId: t1, round: 1, launches: [launch] };
    const first = given(events).when(record);
    expect(first).toEqual({
      events: [
        { type: 'TaskInstancesLaunched', data: { queueId, taskId: t1, round: 1, launches: [launch] } },
      ],
    });
    const launched = [...events, ...(first as { events: TaskQueueEvent[] }).events];
    expect(given(launched).when(record)).toEqual({ events: [] });
    expect(given(launched).when({ ...record, round: 2 })).toMatchObject({
      error: { code: 'TASKQUEUE.STALE' },
    });
    expect(state(launched).tasks[0].workloads).toEqual([wl]);
  });

  it('a failed task can be retried: it starts a new round when nothing runs', () => {
    const failed: TaskQueueEvent = {
      type: 'TaskFailed',
      data: { queueId, taskId: t1, reason: 'exit 1', at },
    };
    expect(given([...twoTasks, startedT1, failed]).when({ type: 'RetryTask', taskId: t1, at })).toEqual({
      events: [
        { type: 'TaskRetried', data: { queueId, taskId: t1 } },
        { type: 'TaskStarted', data: { queueId, taskId: t1, round: 2, cause: 'retry', at } },
      ],
    });
    expect(given([...twoTasks, startedT1]).when({ type: 'RetryTask', taskId: t1, at })).toMatchObject({
      error: { code: 'TASKQUEUE.TASK_NOT_RETRYABLE' },
    });
  });

  it('pause keeps the running task; resume starts a new round of it', () => {
    const paused: TaskQueueEvent = { type: 'TaskQueuePaused', data: { queueId, reason: 'maintenance' } };
    const resumed = given([...twoTasks, startedT1, paused]).when({ type: 'Resume', at });
    expect(resumed).toEqual({ events: [{ type: 'TaskQueueResumed', data: { queueId, round: 2 } }] });
    const after = state([
      ...twoTasks,
      startedT1,
      paused,
      ...(resumed as { events: TaskQueueEvent[] }).events,
    ]);
    expect(after.tasks[0]).toMatchObject({ status: 'running', round: 2, workloads: [] });
    expect(taskQueueStatus(after)).toBe('running');
  });

  it('cancelling the running task leaves the queue idle; an ended task cannot be cancelled', () => {
    const cancel = { type: 'CancelTask' as const, taskId: t1, reason: 'wrong image', at };
    const result = given([...twoTasks, startedT1]).when(cancel);
    expect(result).toEqual({
      events: [{ type: 'TaskCancelled', data: { queueId, taskId: t1, reason: 'wrong image', at } }],
    });
    const after = state([...twoTasks, startedT1, ...(result as { events: TaskQueueEvent[] }).events]);
    expect(after.current).toBeUndefined();
    const completed: TaskQueueEvent = {
      type: 'TaskCompleted',
      data: { queueId, taskId: t1, cause: 'next', reason: 'x', at },
    };
    expect(given([...twoTasks, startedT1, completed]).when(cancel)).toMatchObject({
      error: { code: 'TASKQUEUE.TASK_ENDED' },
    });
  });

  it.each<[string, Record<string, number>, number, number]>([
    ['one per core by default', {}, 4, 4],
    ['two per core', { instancesPerCpu: 2 }, 4, 8],
    ['half a core each, rounded down', { instancesPerCpu: 0.5 }, 3, 1],
    ['a fixed count per node', { instancesPerNode: 3 }, 64, 3],
  ])('instances on a node: %s', (_, over, cores, expected) => {
    expect(instancesOnNode(taskSpecSchema.parse({ name: 'x', command: 'w', ...over }), cores)).toBe(expected);
  });

  it("maps a task to a valid workload pinned to its node, with GridCore's environment", () => {
    const workload = workloadSpecSchema.parse(taskWorkloadSpec(definition, spec('first'), node, 2));
    expect(workload).toMatchObject({
      type: 'container',
      namespace: 'lab',
      replicas: 2,
      resources: { cpuMillis: 1000 },
      constraints: { nodes: [node] },
      env: {
        TASK_NAME: 'first',
        NODE_ID: node,
        INSTANCE_ID: '$(HCN_INSTANCE_INDEX)',
        INPUT_REDIS_URL: 'redis://r:6379',
        INPUT_QUEUE: 'first:in',
      },
    });
    expect(workload.env).not.toHaveProperty('OUTPUT_QUEUE');
  });

  it('passes a sealed Redis URL (one with a password) as a secret, not in the plain environment', () => {
    const sealed = 's1:c2VhbGVkLXRleHQ';
    const task = { ...spec('first'), inputRedis: sealed };
    const workload = workloadSpecSchema.parse(taskWorkloadSpec(definition, task, node, 1));
    expect(workload.env).not.toHaveProperty('INPUT_REDIS_URL');
    expect(workload.secretEnv).toEqual({ INPUT_REDIS_URL: sealed });
  });
});
