import { WorkloadSpec, workloadSpecSchema } from '@hcn/contracts';
import { fold } from '../decider';
import { specFor } from '../testing';
import type { DecisionRecord, WorkloadEvent } from './workload.commands';
import { workloadDecider } from './workload.decider';
import { workloadStatus } from './workload.state';

const W = '00000000-0000-4000-8000-000000000001';
const A1 = '00000000-0000-4000-8000-0000000000a1';
const A2 = '00000000-0000-4000-8000-0000000000a2';
const N1 = '00000000-0000-4000-8000-0000000000b1';
const N2 = '22222222-2222-4222-8222-222222222222';
const given = specFor(workloadDecider);
const T0 = '2026-11-22T10:00:00.000Z';

function spec(extra: Partial<Record<string, unknown>> = {}): WorkloadSpec {
  return workloadSpecSchema.parse({
    name: 'job',
    command: 'sleep',
    args: ['1'],
    resources: { cpuMillis: 500, memoryBytes: 1000 },
    ...extra,
  });
}
const submitted = (s = spec()): WorkloadEvent => ({
  type: 'WorkloadSubmitted',
  data: { workloadId: W, spec: s, idempotencyKey: null },
});
const placed = (allocationId: string, instance = 0, attempt = 0, generation = 1): WorkloadEvent => ({
  type: 'AllocationPlaced',
  data: {
    workloadId: W,
    allocationId,
    instance,
    attempt,
    generation,
    nodeId: N1,
    domainId: 'site-a',
    resources: spec().resources,
  },
});
const failed = (allocationId: string, at = T0): WorkloadEvent => ({
  type: 'AllocationFailed',
  data: { workloadId: W, allocationId, nodeId: N1, reason: 'exit 1', exitCode: 1, signal: null, endedAt: at },
});
const decision = (outcome: DecisionRecord['outcome'], attempt = 0): DecisionRecord => ({
  instance: 0,
  attempt,
  decision: {
    hops: [
      { scope: null, policy: 'least-loaded', to: 0, members: 2, judged: 2, kept: [['d', 'site-a', 50]] },
      { scope: 'site-a', policy: 'bin-pack', to: 0, members: 1, judged: 1, kept: [['n', N1, 10]] },
    ],
    rejections: [
      {
        scope: 'site-b',
        reason: 'SCHEDULE.NO_FEASIBLE_NODE',
        detail: 'too small',
        members: 1,
        judged: 1,
        rejected: { 'FILTER.INSUFFICIENT_CPU': 1 },
        kept: [['n', N2, null, 'FILTER.INSUFFICIENT_CPU']],
      },
    ],
    topK: 5,
    basis: { at: '7/3', ahead: '1,3-4' },
  },
  outcome,
});

describe('workload decider', () => {
  it('submits once; the same spec again is a no-op, a different one a conflict', () => {
    expect(given([]).when({ type: 'Submit', workloadId: W, spec: spec(), idempotencyKey: 'k' })).toEqual({
      events: [{ type: 'WorkloadSubmitted', data: { workloadId: W, spec: spec(), idempotencyKey: 'k' } }],
    });
    expect(
      given([submitted()]).when({ type: 'Submit', workloadId: W, spec: spec(), idempotencyKey: null }),
    ).toEqual({ events: [] });
    const conflict = given([submitted()]).when({
      type: 'Submit',
      workloadId: W,
      spec: spec({ command: 'true' }),
      idempotencyKey: null,
    });
    expect(conflict).toMatchObject({ error: { code: 'WORKLOAD.IDEMPOTENCY_CONFLICT' } });
  });

  it('records where a delegated workload came from on its WorkloadSubmitted (absent otherwise)', () => {
    const delegatedFrom = {
      siteId: 'parent',
      workloadId: '00000000-0000-4000-8000-000000000001',
      delegationId: '00000000-0000-4000-8000-000000000002',
    };
    const submit = { type: 'Submit' as const, workloadId: W, spec: spec(), idempotencyKey: 'd' };
    const data = { workloadId: W, spec: spec(), idempotencyKey: 'd', delegatedFrom };
    expect(given([]).when({ ...submit, delegatedFrom })).toEqual({
      events: [{ type: 'WorkloadSubmitted', data }],
    });
    const plain = given([]).when(submit) as { events: Array<{ data: object }> };
    expect(plain.events[0].data).not.toHaveProperty('delegatedFrom');
  });

  it('refuses workload types that cannot run yet', () => {
    const result = given([]).when({
      type: 'Submit',
      workloadId: W,
      spec: spec({ type: 'batch' }),
      idempotencyKey: null,
    });
    expect(result).toMatchObject({ error: { code: 'WORKLOAD.TYPE_UNSUPPORTED' } });
  });

  it('records a decision as one event: the placement with its hops, rejections and basis inside', () => {
    const record = decision({ kind: 'placed', allocationId: A1, nodeId: N1, domainId: 'site-a' });
    const result = given([submitted()]).when({ type: 'RecordDecision', decision: record });
    expect('events' in result && result.events.map((e) => e.type)).toEqual(['AllocationPlaced']);
    expect('events' in result && result.events[0].data).toMatchObject({
      nodeId: N1,
      decision: record.decision,
    });
    const state = fold(workloadDecider, [submitted(), ...('events' in result ? result.events : [])]);
    expect(state.hops).toBe(2);
  });

  it('refuses a decision for an instance that is no longer waiting (another hub placed it)', () => {
    const result = given([submitted(), placed(A1)]).when({
      type: 'RecordDecision',
      decision: decision({ kind: 'placed', allocationId: A2, nodeId: N1, domainId: 'site-a' }),
    });
    expect(result).toMatchObject({ error: { code: 'WORKLOAD.STALE_DECISION' } });
  });

  it('does not repeat an unschedulable verdict with the same reasons', () => {
    const verdict = decision({
      kind: 'unschedulable',
      reasons: { 'FILTER.INSUFFICIENT_CPU': 3 },
      detail: 'x',
    });
    const first = given([submitted()]).when({ type: 'RecordDecision', decision: verdict });
    expect('events' in first && first.events.at(-1)?.type).toBe('WorkloadUnschedulable');
    const events = 'events' in first ? first.events : [];
    expect(given([submitted(), ...events]).when({ type: 'RecordDecision', decision: verdict })).toEqual({
      events: [],
    });
  });

  it('reschedules a failed instance under on-failure with backoff, until the retries are used up', () => {
    const s = spec({ restartPolicy: { policy: 'on-failure', maxRetries: 1, backoffSeconds: 10 } });
    const afterFirst = fold(workloadDecider, [submitted(s), placed(A1), failed(A1)]);
    expect(afterFirst.instances[0]).toMatchObject({
      status: 'pending',
      attempt: 1,
      retries: 1,
      notBefore: '2026-11-22T10:00:10.000Z',
    });
    const afterSecond = fold(workloadDecider, [
      submitted(s),
      placed(A1),
      failed(A1),
      placed(A2, 0, 1),
      failed(A2),
    ]);
    expect(afterSecond.instances[0]).toMatchObject({ status: 'failed', attempt: 1 });
    expect(workloadStatus(afterSecond)).toBe('failed');
  });

  it('never restarts under policy never; a lost allocation stays lost', () => {
    const lost: WorkloadEvent = {
      type: 'AllocationLost',
      data: { workloadId: W, allocationId: A1, nodeId: N1, reason: 'node offline', lostAt: T0 },
    };
    const state = fold(workloadDecider, [submitted(), placed(A1), lost]);
    expect(state.instances[0].status).toBe('lost');
  });

  it('stop asks each active allocation to stop and ends stopped', () => {
    const result = given([submitted(), placed(A1)]).when({ type: 'RequestStop', reason: 'done' });
    expect('events' in result && result.events.map((e) => e.type)).toEqual([
      'WorkloadStopRequested',
      'AllocationStopRequested',
    ]);
    const events = 'events' in result ? result.events : [];
    const stopped: WorkloadEvent = {
      type: 'AllocationStopped',
      data: {
        workloadId: W,
        allocationId: A1,
        nodeId: N1,
        endedBy: 'SIGTERM',
        exitCode: 0,
        signal: null,
        endedAt: T0,
      },
    };
    const state = fold(workloadDecider, [submitted(), placed(A1), ...events, stopped]);
    expect(workloadStatus(state)).toBe('stopped');
    expect(
      given([submitted(), placed(A1), ...events, stopped]).when({ type: 'RequestStop', reason: 'again' }),
    ).toEqual({ events: [] });
  });

  it('restart replaces a running allocation with a new attempt once it stopped', () => {
    const result = given([submitted(), placed(A1)]).when({ type: 'RequestRestart', reason: 'user' });
    const events = 'events' in result ? result.events : [];
    const stopped: WorkloadEvent = {
      type: 'AllocationStopped',
      data: {
        workloadId: W,
        allocationId: A1,
        nodeId: N1,
        endedBy: 'SIGTERM',
        exitCode: 0,
        signal: null,
        endedAt: T0,
      },
    };
    const state = fold(workloadDecider, [submitted(), placed(A1), ...events, stopped]);
    expect(state.instances[0]).toMatchObject({ status: 'pending', attempt: 1, retries: 0 });
  });

  it('an update replaces allocations only when more than the replica count changed', () => {
    const scaled = given([submitted(), placed(A1)]).when({ type: 'Update', spec: spec({ replicas: 2 }) });
    expect('events' in scaled && scaled.events.map((e) => e.type)).toEqual(['WorkloadUpdated']);
    const changed = given([submitted(), placed(A1)]).when({ type: 'Update', spec: spec({ args: ['2'] }) });
    expect('events' in changed && changed.events.map((e) => e.type)).toEqual([
      'WorkloadUpdated',
      'AllocationStopRequested',
    ]);
    const state = fold(workloadDecider, [
      submitted(),
      placed(A1),
      ...('events' in scaled ? scaled.events : []),
    ]);
    expect(state.instances.map((i) => [i.instance, i.status])).toEqual([
      [0, 'placed'],
      [1, 'pending'],
    ]);
  });

  it('scaling down stops the instances beyond the new count and forgets them when they ended', () => {
    const s2 = spec({ replicas: 2 });
    const history = [submitted(s2), placed(A1, 0), placed(A2, 1)];
    const result = given(history).when({ type: 'Update', spec: spec({ replicas: 1 }) });
    const events = 'events' in result ? result.events : [];
    expect(events.map((e) => e.type)).toEqual(['WorkloadUpdated', 'AllocationStopRequested']);
    expect(events[1].data).toMatchObject({ allocationId: A2, reason: 'scaled down' });
    const stopped: WorkloadEvent = {
      type: 'AllocationStopped',
      data: {
        workloadId: W,
        allocationId: A2,
        nodeId: N1,
        endedBy: 'SIGTERM',
        exitCode: 0,
        signal: null,
        endedAt: T0,
      },
    };
    expect(fold(workloadDecider, [...history, ...events, stopped]).instances.map((i) => i.instance)).toEqual([
      0,
    ]);
  });

  it('a namespace cannot change and a deleted workload takes no commands', () => {
    expect(given([submitted()]).when({ type: 'Update', spec: spec({ namespace: 'other' }) })).toMatchObject({
      error: { code: 'WORKLOAD.NAMESPACE_IMMUTABLE' },
    });
    const deleted: WorkloadEvent = { type: 'WorkloadDeleted', data: { workloadId: W, reason: 'x' } };
    expect(given([submitted(), deleted]).when({ type: 'RequestRestart', reason: 'x' })).toMatchObject({
      error: { code: 'WORKLOAD.DELETED' },
    });
    expect(given([submitted(), deleted]).when({ type: 'Delete', reason: 'again' })).toEqual({ events: [] });
  });

  it('agent reports are idempotent: a second start or end changes nothing', () => {
    const started: WorkloadEvent = {
      type: 'AllocationStarted',
      data: { workloadId: W, allocationId: A1, nodeId: N1, pid: 42, startedAt: T0 },
    };
    expect(
      given([submitted(), placed(A1), started]).when({
        type: 'RecordStarted',
        allocationId: A1,
        nodeId: N1,
        pid: 42,
        at: T0,
      }),
    ).toEqual({ events: [] });
    const end = {
      allocationId: A1,
      nodeId: N1,
      outcome: 'failed' as const,
      exitCode: 1,
      signal: null,
      reason: 'exit 1',
      endedBy: 'not-running' as const,
      at: T0,
    };
    expect(given([submitted(), placed(A1), failed(A1)]).when({ type: 'RecordEnded', ...end })).toEqual({
      events: [],
    });
    const foreign = { type: 'RecordStarted', allocationId: A1, nodeId: A2, pid: 1, at: T0 } as const;
    expect(given([submitted(), placed(A1)]).when(foreign)).toMatchObject({
      error: { code: 'AUTH.ALLOCATION_NOT_ON_NODE' },
    });
    expect(
      given([submitted()]).when({ type: 'RecordStarted', allocationId: A2, nodeId: N1, pid: 1, at: T0 }),
    ).toMatchObject({ error: { code: 'WORKLOAD.ALLOCATION_NOT_FOUND' } });
  });
});
