import { CompactDecision, WorkloadSpec, workloadSpecSchema } from '@hcn/contracts';
import { fold } from '../decider';
import { DomainError } from '../errors';
import { specFor } from '../testing';
import type { DecisionRecord, WorkloadEvent } from './workload.commands';
import { workloadDecider } from './workload.decider';
import { workloadStatus } from './workload.state';

const W = '00000000-0000-4000-8000-000000000001';
const D1 = '00000000-0000-4000-8000-0000000000d1';
const D2 = '00000000-0000-4000-8000-0000000000d2';
const CHILD_W = '00000000-0000-4000-8000-0000000000c1';
const T0 = '2026-11-26T10:00:00.000Z';
const given = specFor(workloadDecider);

function spec(extra: Record<string, unknown> = {}): WorkloadSpec {
  return workloadSpecSchema.parse({
    name: 'job',
    command: 'sleep',
    resources: { cpuMillis: 500, memoryBytes: 1000 },
    ...extra,
  });
}
const submitted = (s = spec()): WorkloadEvent => ({
  type: 'WorkloadSubmitted',
  data: { workloadId: W, spec: s, idempotencyKey: null },
});
/** The decision of a delegation: the children tier chose site `siteId`, the local root was rejected. */
const record = (siteId: string): CompactDecision => ({
  hops: [
    {
      scope: 'federation-children',
      policy: 'least-loaded',
      to: 0,
      members: 1,
      judged: 1,
      kept: [['d', siteId, 80]],
    },
    {
      scope: siteId,
      policy: 'least-loaded',
      to: 0,
      members: 1,
      judged: 1,
      kept: [['n', `site:${siteId}`, 80]],
    },
  ],
  rejections: [
    { scope: '(root)', reason: 'SCHEDULE.NO_FEASIBLE_NODE', detail: 'full', members: 1, judged: 1, kept: [] },
  ],
  topK: 5,
  basis: {
    at: '10/10',
    federation: { order: ['local', 'children', 'peers'], children: [[siteId, 3]], peers: [] },
  },
});
const delegation = (siteId: string, allocationId: string, attempt = 0): DecisionRecord => ({
  instance: 0,
  attempt,
  decision: record(siteId),
  outcome: { kind: 'delegated', allocationId, siteId, relation: 'child' },
});
const delegated = (siteId: string, allocationId: string, attempt = 0): WorkloadEvent => ({
  type: 'AllocationDelegated',
  data: {
    workloadId: W,
    allocationId,
    instance: 0,
    attempt,
    generation: 1,
    siteId,
    relation: 'child',
    resources: spec().resources,
    decision: record(siteId),
  },
});
const rejectedBy = (siteId: string, allocationId: string) =>
  ({
    type: 'RecordDelegationRejected',
    allocationId,
    siteId,
    reason: 'unschedulable',
    code: 'WORKLOAD.UNSCHEDULABLE',
    detail: 'no node fits',
    reasons: { 'FILTER.INSUFFICIENT_CPU': 2 },
    at: T0,
  }) as const;
const events = (result: { events: WorkloadEvent[] } | { error: unknown }): WorkloadEvent[] => {
  if ('error' in result) throw result.error;
  return result.events;
};

describe('workload decider: delegation to another site (federation, parent side)', () => {
  it('records a decision that chose a site as AllocationDelegated: an allocation at site:<id>, the instance placed', () => {
    const out = events(
      given([submitted()]).when({ type: 'RecordDecision', decision: delegation('child-a', D1) }),
    );
    expect(out).toEqual([delegated('child-a', D1)]);
    const state = fold(workloadDecider, [submitted(), ...out]);
    expect(state.allocations[D1]).toMatchObject({
      nodeId: 'site:child-a',
      domainId: 'child-a',
      siteId: 'child-a',
      relation: 'child',
      status: 'placed',
    });
    expect(state.instances[0]).toMatchObject({ status: 'placed', allocationId: D1 });
    expect(state.hops).toBe(2);
    expect(workloadStatus(state)).toBe('starting');
  });

  it('records the site taking it once (DelegationAccepted with its workload id); a repeat appends nothing', () => {
    const accept = {
      type: 'RecordDelegationAccepted',
      allocationId: D1,
      siteId: 'child-a',
      siteWorkloadId: CHILD_W,
      at: T0,
    } as const;
    const out = events(given([submitted(), delegated('child-a', D1)]).when(accept));
    expect(out).toEqual([
      {
        type: 'DelegationAccepted',
        data: { workloadId: W, allocationId: D1, siteId: 'child-a', siteWorkloadId: CHILD_W, acceptedAt: T0 },
      },
    ]);
    const after = [submitted(), delegated('child-a', D1), ...out];
    expect(fold(workloadDecider, after).allocations[D1].siteWorkloadId).toBe(CHILD_W);
    expect(events(given(after).when(accept))).toEqual([]);
    // a refusal after the site took it changes nothing either
    expect(events(given(after).when(rejectedBy('child-a', D1)))).toEqual([]);
  });

  it('records a refusal as DelegationRejected (scope site:<id>), ends the allocation rejected and decides the instance again without that site', () => {
    const out = events(given([submitted(), delegated('child-a', D1)]).when(rejectedBy('child-a', D1)));
    expect(out).toEqual([
      {
        type: 'DelegationRejected',
        data: {
          workloadId: W,
          instance: 0,
          attempt: 0,
          scope: 'site:child-a',
          reason: 'unschedulable',
          detail: 'no node fits',
          candidates: [],
          allocationId: D1,
          siteId: 'child-a',
          code: 'WORKLOAD.UNSCHEDULABLE',
          reasons: { 'FILTER.INSUFFICIENT_CPU': 2 },
          rejectedAt: T0,
        },
      },
    ]);
    const state = fold(workloadDecider, [submitted(), delegated('child-a', D1), ...out]);
    expect(state.allocations[D1].status).toBe('rejected');
    // pending again, next attempt, no restart spent, no backoff, child-a left out of the next decision
    expect(state.instances[0]).toEqual({
      instance: 0,
      attempt: 1,
      status: 'pending',
      retries: 0,
      rejectedSites: ['child-a'],
    });
    expect(workloadStatus(state)).toBe('pending');
  });

  it('remembers every site that refused until one takes it, and forgets them once one does', () => {
    const log = [
      submitted(),
      delegated('child-a', D1),
      ...events(given([submitted(), delegated('child-a', D1)]).when(rejectedBy('child-a', D1))),
      delegated('child-b', D2, 1),
    ];
    const b = events(given(log).when({ ...rejectedBy('child-b', D2), reason: 'timeout', code: undefined }));
    expect(b[0]).toMatchObject({
      type: 'DelegationRejected',
      data: { scope: 'site:child-b', reason: 'timeout' },
    });
    expect(b[0].data).not.toHaveProperty('code');
    expect(fold(workloadDecider, [...log, ...b]).instances[0]).toMatchObject({
      attempt: 2,
      status: 'pending',
      rejectedSites: ['child-a', 'child-b'],
    });
    const accepted: WorkloadEvent = {
      type: 'DelegationAccepted',
      data: { workloadId: W, allocationId: D2, siteId: 'child-b', siteWorkloadId: CHILD_W, acceptedAt: T0 },
    };
    expect(fold(workloadDecider, [...log, accepted]).instances[0].rejectedSites).toBeUndefined();
  });

  it('an unschedulable verdict makes every site a candidate again', () => {
    const log = [
      submitted(),
      delegated('child-a', D1),
      ...events(given([submitted(), delegated('child-a', D1)]).when(rejectedBy('child-a', D1))),
    ];
    const unschedulable: WorkloadEvent = {
      type: 'WorkloadUnschedulable',
      data: {
        workloadId: W,
        instance: 0,
        attempt: 1,
        reasons: { 'SCHEDULE.NO_FEASIBLE_NODE': 1 },
        detail: 'x',
      },
    };
    const instance = fold(workloadDecider, [...log, unschedulable]).instances[0];
    expect(instance.status).toBe('unschedulable');
    expect(instance.rejectedSites).toBeUndefined();
  });

  it('refuses an answer about another site (FEDERATION.DELEGATION_NOT_TO_SITE) or an unknown allocation; writes nothing', () => {
    const log = [submitted(), delegated('child-a', D1)];
    const foreign = given(log).when({ ...rejectedBy('child-b', D1) });
    expect('error' in foreign && (foreign.error as DomainError).code).toBe(
      'FEDERATION.DELEGATION_NOT_TO_SITE',
    );
    const unknown = given(log).when({
      type: 'RecordDelegationAccepted',
      allocationId: D2,
      siteId: 'child-a',
      siteWorkloadId: CHILD_W,
      at: T0,
    });
    expect('error' in unknown && (unknown.error as DomainError).code).toBe('WORKLOAD.ALLOCATION_NOT_FOUND');
  });

  it('a stop asks the delegated allocation to stop at its place site:<id>; a refusal then leaves the instance stopped', () => {
    const log = [submitted(), delegated('child-a', D1)];
    const stop = events(given(log).when({ type: 'RequestStop', reason: 'user' }));
    expect(stop[1]).toMatchObject({
      type: 'AllocationStopRequested',
      data: { allocationId: D1, nodeId: 'site:child-a' },
    });
    const refusal = events(given([...log, ...stop]).when(rejectedBy('child-a', D1)));
    const state = fold(workloadDecider, [...log, ...stop, ...refusal]);
    expect(state.allocations[D1].status).toBe('rejected');
    expect(state.instances[0].status).toBe('stopped');
  });

  it('lifecycle reports apply to a delegated allocation at its place (started, ended; another place refused)', () => {
    const log = [submitted(), delegated('child-a', D1)];
    const started = events(
      given(log).when({ type: 'RecordStarted', allocationId: D1, nodeId: 'site:child-a', pid: 7, at: T0 }),
    );
    expect(started[0]).toMatchObject({ type: 'AllocationStarted', data: { nodeId: 'site:child-a', pid: 7 } });
    const wrong = given(log).when({
      type: 'RecordStarted',
      allocationId: D1,
      nodeId: 'site:child-b',
      pid: 7,
      at: T0,
    });
    expect('error' in wrong && (wrong.error as DomainError).code).toBe('AUTH.ALLOCATION_NOT_ON_NODE');
  });
});
