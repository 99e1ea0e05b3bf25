import { WorkloadSpec, workloadSpecSchema } from '@hcn/contracts';
import { fold } from '../decider';
import { specFor } from '../testing';
import type { WorkloadCommand, WorkloadEvent } from './workload.commands';
import { workloadDecider } from './workload.decider';
import { workloadStatus } from './workload.state';

const W = '00000000-0000-4000-8000-000000000001';
const D = '00000000-0000-4000-8000-0000000000d1';
const SW = '00000000-0000-4000-8000-0000000000c1';
const T0 = '2026-11-26T10:00:00.000Z';
const T1 = '2026-11-26T10:01:00.000Z';
const given = specFor(workloadDecider);

const spec = (policy = 'never'): WorkloadSpec =>
  workloadSpecSchema.parse({
    name: 'job',
    command: 'sleep',
    resources: { cpuMillis: 500, memoryBytes: 1000 },
    restartPolicy: { policy, maxRetries: 2, backoffSeconds: 1 },
  });
const submitted = (policy?: string): WorkloadEvent => ({
  type: 'WorkloadSubmitted',
  data: { workloadId: W, spec: spec(policy), idempotencyKey: null },
});
const delegated: WorkloadEvent = {
  type: 'AllocationDelegated',
  data: {
    workloadId: W,
    allocationId: D,
    instance: 0,
    attempt: 0,
    generation: 1,
    siteId: 'child-a',
    relation: 'child',
    resources: spec().resources,
    decision: { hops: [], rejections: [], topK: 5, basis: { at: '7/3' } },
  },
};
const accepted: WorkloadEvent = {
  type: 'DelegationAccepted',
  data: { workloadId: W, allocationId: D, siteId: 'child-a', siteWorkloadId: SW, acceptedAt: T0 },
};
const anchor = (siteRevision: number) => ({ siteRevision, siteHash: `h${siteRevision}` });
const started = (siteRevision = 2): WorkloadEvent => ({
  type: 'AllocationStarted',
  data: {
    workloadId: W,
    allocationId: D,
    nodeId: 'site:child-a',
    pid: 7,
    startedAt: T0,
    ...anchor(siteRevision),
  },
});
const report = (status: string, siteRevision: number, extra: Record<string, unknown> = {}): WorkloadCommand =>
  ({
    type: 'RecordSiteStatus',
    allocationId: D,
    siteId: 'child-a',
    siteWorkloadId: SW,
    status,
    siteRevision,
    siteHash: `h${siteRevision}`,
    at: T0,
    ...extra,
  }) as WorkloadCommand;
const unknown: WorkloadEvent = {
  type: 'AllocationUnknown',
  data: {
    workloadId: W,
    allocationId: D,
    nodeId: 'site:child-a',
    siteId: 'child-a',
    reason: 'site child-a went offline',
    unknownAt: T1,
  },
};
const markUnknown: WorkloadCommand = {
  type: 'MarkUnknown',
  allocationId: D,
  siteId: 'child-a',
  reason: 'site child-a went offline',
  at: T1,
};

describe('workload decider: status of a delegation flows back (federation)', () => {
  it("records the site's start through the lifecycle events, stamped with its revision and hash", () => {
    expect(given([submitted(), delegated, accepted]).when(report('running', 2, { pid: 7 }))).toEqual({
      events: [started(2)],
    });
    const state = fold(workloadDecider, [submitted(), delegated, accepted, started(2)]);
    expect(state.allocations[D]).toMatchObject({ status: 'running', siteRevision: 2 });
    expect(workloadStatus(state)).toBe('running');
  });

  it("records a service's readiness as reported, with its start", () => {
    const service = workloadSpecSchema.parse({
      name: 'svc',
      type: 'service',
      command: 'serve',
      resources: { cpuMillis: 500, memoryBytes: 1000 },
      ports: [{ name: 'http' }],
      readinessProbe: { http: { path: '/ready', port: 'http' } },
    });
    const history: WorkloadEvent[] = [
      { type: 'WorkloadSubmitted', data: { workloadId: W, spec: service, idempotencyKey: null } },
      delegated,
      accepted,
    ];
    const ready = {
      type: 'AllocationReady',
      data: { workloadId: W, allocationId: D, nodeId: 'site:child-a', at: T0, ...anchor(2) },
    };
    expect(given(history).when(report('running', 2, { pid: 7, ready: true }))).toEqual({
      events: [started(2), ready],
    });
    const state = fold(workloadDecider, [...history, started(2), ready as WorkloadEvent]);
    expect(state.allocations[D]).toMatchObject({ status: 'running', ready: true });
  });

  it('appends nothing for a repeat or an older report', () => {
    const history = [submitted(), delegated, accepted, started(2)];
    expect(given(history).when(report('running', 2))).toEqual({ events: [] });
    expect(given(history).when(report('accepted', 1))).toEqual({ events: [] });
  });

  it('records an end (exit code, reason) and a loss as the site reports them', () => {
    const history = [submitted(), delegated, accepted, started(2)];
    expect(given(history).when(report('failed', 4, { exitCode: 3, reason: 'exit 3' }))).toEqual({
      events: [
        {
          type: 'AllocationFailed',
          data: {
            workloadId: W,
            allocationId: D,
            nodeId: 'site:child-a',
            reason: 'exit 3',
            exitCode: 3,
            signal: null,
            endedAt: T0,
            ...anchor(4),
          },
        },
      ],
    });
    expect(given(history).when(report('lost', 5, { reason: 'node went offline' }))).toEqual({
      events: [
        {
          type: 'AllocationLost',
          data: {
            workloadId: W,
            allocationId: D,
            nodeId: 'site:child-a',
            reason: 'node went offline',
            lostAt: T0,
            ...anchor(5),
          },
        },
      ],
    });
  });

  it('takes a report as the acceptance when the answer was lost, and records nothing after a fall back', () => {
    expect(given([submitted(), delegated]).when(report('running', 2, { pid: 7 }))).toEqual({
      events: [{ type: 'DelegationAccepted', data: { ...accepted.data } }, started(2)],
    });
    const rejected: WorkloadEvent = {
      type: 'DelegationRejected',
      data: {
        workloadId: W,
        instance: 0,
        attempt: 0,
        scope: 'site:child-a',
        reason: 'timeout',
        detail: 'no answer',
        candidates: [],
        allocationId: D,
        siteId: 'child-a',
        rejectedAt: T0,
      },
    };
    expect(given([submitted(), delegated, rejected]).when(report('accepted', 1))).toEqual({ events: [] });
    expect(given([submitted(), delegated, rejected]).when(report('running', 2))).toEqual({ events: [] });
  });

  it("refuses another site's report and a report of another workload of the site", () => {
    const other = given([submitted(), delegated, accepted]).when({
      ...report('running', 2),
      siteId: 'child-b',
    } as WorkloadCommand);
    expect(other).toMatchObject({ error: { code: 'FEDERATION.DELEGATION_NOT_TO_SITE' } });
    const mismatch = given([submitted(), delegated, accepted]).when({
      ...report('running', 2),
      siteWorkloadId: '00000000-0000-4000-8000-0000000000c2',
    } as WorkloadCommand);
    expect(mismatch).toMatchObject({ error: { code: 'FEDERATION.SITE_WORKLOAD_MISMATCH' } });
    expect(given([submitted()]).when(report('running', 2))).toMatchObject({
      error: { code: 'WORKLOAD.ALLOCATION_NOT_FOUND' },
    });
  });
});

describe('workload decider: partitions (federation)', () => {
  it('makes a taken delegation unknown when its site goes offline, not lost, and holds its instance', () => {
    expect(given([submitted(), delegated, accepted, started()]).when(markUnknown)).toEqual({
      events: [unknown],
    });
    const state = fold(workloadDecider, [submitted('always'), delegated, accepted, started(), unknown]);
    expect(state.allocations[D]).toMatchObject({ status: 'unknown', unknownFrom: 'running' });
    expect(state.instances[0]).toMatchObject({ status: 'unknown', attempt: 0, allocationId: D });
    expect(workloadStatus(state)).toBe('unknown');
    // nothing to wait for: not taken yet (that one falls back), already unknown, or ended
    expect(given([submitted(), delegated]).when(markUnknown)).toEqual({ events: [] });
    expect(given([submitted(), delegated, accepted, started(), unknown]).when(markUnknown)).toEqual({
      events: [],
    });
  });

  it('brings it back with the first report after the partition; an end is recorded as reported', () => {
    const history = [submitted(), delegated, accepted, started(), unknown];
    const reachable: WorkloadEvent = {
      type: 'AllocationReachable',
      data: {
        workloadId: W,
        allocationId: D,
        nodeId: 'site:child-a',
        siteId: 'child-a',
        at: T0,
        ...anchor(3),
      },
    };
    expect(given(history).when(report('running', 3))).toEqual({ events: [reachable] });
    const back = fold(workloadDecider, [...history, reachable]);
    expect(back.allocations[D]).toMatchObject({ status: 'running', siteRevision: 3 });
    expect(back.allocations[D]).not.toHaveProperty('unknownFrom');
    expect(back.instances[0].status).toBe('running');
    // the status asked on its return, of a workload unchanged there: the revision recorded before, reachable again
    expect(given(history).when(report('running', 2))).toMatchObject({
      events: [{ type: 'AllocationReachable', data: anchor(2) }],
    });
    const ended = given(history).when(report('completed', 6, { exitCode: 0 }));
    expect(ended).toMatchObject({
      events: [{ type: 'AllocationReachable' }, { type: 'AllocationCompleted' }],
    });
  });

  it('lets an operator give an unknown allocation up (lost: rescheduled by policy) or stop it', () => {
    const history = [submitted('always'), delegated, accepted, started(), unknown];
    const giveUp: WorkloadCommand = { type: 'GiveUp', allocationId: D, reason: 'operator', at: T1 };
    const lost = given(history).when(giveUp);
    expect(lost).toMatchObject({ events: [{ type: 'AllocationLost' }] });
    const after = fold(workloadDecider, [...history, ...(lost as { events: WorkloadEvent[] }).events]);
    expect(after.instances[0]).toMatchObject({ status: 'pending', attempt: 1 });
    // only an unknown one: a running allocation is not given up
    expect(given([submitted(), delegated, accepted, started()]).when(giveUp)).toMatchObject({
      error: { code: 'WORKLOAD.ALLOCATION_NOT_UNKNOWN' },
    });
    const stop = given(history).when({ type: 'RequestStop', reason: 'user' });
    expect(stop).toMatchObject({
      events: [
        { type: 'WorkloadStopRequested' },
        { type: 'AllocationStopRequested', data: { nodeId: 'site:child-a' } },
      ],
    });
  });
});
