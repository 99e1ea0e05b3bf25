import { HcnError, delegationStatusReportSchema, workloadSpecSchema } from '@hcn/contracts';
import { WorkloadEvent, fold, workloadDecider } from '@hcn/domain';
import {
  DELEGATION_CONTROL_PURPOSE,
  DELEGATION_STATUS_PURPOSE,
  checkSigned,
  readSigned,
  sealSigned,
} from './signed-message';
import { statusReport } from './status-report';

const W = '00000000-0000-4000-8000-000000000001';
const A1 = '00000000-0000-4000-8000-0000000000a1';
const A2 = '00000000-0000-4000-8000-0000000000a2';
const N1 = '00000000-0000-4000-8000-0000000000b1';
const E = '00000000-0000-4000-8000-0000000000e1';
const from = {
  siteId: 'parent',
  workloadId: '00000000-0000-4000-8000-0000000000f1',
  delegationId: '00000000-0000-4000-8000-0000000000d1',
};
const T0 = '2026-11-26T10:00:00.000Z';
const spec = (restart = 'never') =>
  workloadSpecSchema.parse({
    name: 'job',
    command: 'sleep',
    resources: { cpuMillis: 500, memoryBytes: 1000 },
    restartPolicy: { policy: restart, maxRetries: 1, backoffSeconds: 1 },
  });
const submitted = (restart?: string): WorkloadEvent => ({
  type: 'WorkloadSubmitted',
  data: { workloadId: W, spec: spec(restart), idempotencyKey: 'delegation:x', delegatedFrom: from },
});
const placed = (allocationId: string, attempt = 0): WorkloadEvent => ({
  type: 'AllocationPlaced',
  data: {
    workloadId: W,
    allocationId,
    instance: 0,
    attempt,
    generation: 1,
    nodeId: N1,
    domainId: 'lab',
    resources: spec().resources,
  },
});
const started = (allocationId: string): WorkloadEvent => ({
  type: 'AllocationStarted',
  data: { workloadId: W, allocationId, nodeId: N1, pid: 42, startedAt: T0 },
});
const failed = (allocationId: string): WorkloadEvent => ({
  type: 'AllocationFailed',
  data: { workloadId: W, allocationId, nodeId: N1, reason: 'exit 3', exitCode: 3, signal: null, endedAt: T0 },
});
const reportAfter = (events: WorkloadEvent[]) =>
  statusReport('child-a', from, fold(workloadDecider, events), {
    eventId: E,
    revision: events.length - 1,
    recordedAt: T0,
  });

describe('status report of a delegated workload', () => {
  it('says accepted until the workload runs, then running with its pid, keyed by the event', () => {
    const accepted = reportAfter([submitted(), placed(A1)]);
    expect(accepted).toEqual({
      delegationId: from.delegationId,
      siteId: 'child-a',
      parentWorkloadId: from.workloadId,
      workloadId: W,
      revision: 1,
      eventId: E,
      status: 'accepted',
      at: T0,
    });
    expect(delegationStatusReportSchema.parse(accepted)).toEqual(accepted);
    expect(reportAfter([submitted(), placed(A1), started(A1)])).toMatchObject({ status: 'running', pid: 42 });
  });

  it('reports an end with its exit code and reason; a failure the site retries is not an end', () => {
    expect(reportAfter([submitted(), placed(A1), started(A1), failed(A1)])).toMatchObject({
      status: 'failed',
      exitCode: 3,
      reason: 'exit 3',
    });
    const retried = reportAfter([submitted('on-failure'), placed(A1), started(A1), failed(A1)]);
    expect(retried.status).toBe('accepted');
    expect(retried).not.toHaveProperty('exitCode');
    expect(
      reportAfter([submitted('on-failure'), placed(A1), failed(A1), placed(A2, 1), started(A2)]),
    ).toMatchObject({
      status: 'running',
    });
  });

  it('reports a stop (and a deletion) as stopped', () => {
    const stopping: WorkloadEvent[] = [
      submitted(),
      placed(A1),
      started(A1),
      { type: 'WorkloadStopRequested', data: { workloadId: W, reason: 'cancelled' } },
    ];
    expect(reportAfter(stopping).status).toBe('running');
    const stopped: WorkloadEvent = {
      type: 'AllocationStopped',
      data: {
        workloadId: W,
        allocationId: A1,
        nodeId: N1,
        endedBy: 'SIGTERM',
        exitCode: null,
        signal: 'SIGTERM',
        endedAt: T0,
      },
    };
    expect(reportAfter([...stopping, stopped]).status).toBe('stopped');
    const deleted: WorkloadEvent = { type: 'WorkloadDeleted', data: { workloadId: W, reason: 'gone' } };
    expect(reportAfter([submitted(), deleted]).status).toBe('stopped');
  });
});

describe('signed messages between sites', () => {
  const now = new Date(Date.parse(T0));
  const code = (action: () => unknown) => {
    try {
      action();
    } catch (error) {
      return (error as HcnError).code;
    }
    return undefined;
  };

  it('checks the key and the purpose, the time and the shape', () => {
    const sealed = sealSigned('key-1', DELEGATION_STATUS_PURPOSE, { a: 1 }, now);
    expect(code(() => checkSigned('key-1', DELEGATION_STATUS_PURPOSE, sealed))).toBeUndefined();
    expect(code(() => checkSigned('key-2', DELEGATION_STATUS_PURPOSE, sealed))).toBe(
      'AUTH.INVALID_DELEGATION_SIGNATURE',
    );
    // a status report's MAC does not stand for a control request
    expect(code(() => checkSigned('key-1', DELEGATION_CONTROL_PURPOSE, sealed))).toBe(
      'AUTH.INVALID_DELEGATION_SIGNATURE',
    );
    const later = new Date(now.getTime() + 61_000);
    expect(code(() => readSigned(sealed, delegationStatusReportSchema, 'X.MALFORMED', later))).toBe(
      'AUTH.DELEGATION_STALE',
    );
    expect(code(() => readSigned(sealed, delegationStatusReportSchema, 'X.MALFORMED', now))).toBe(
      'X.MALFORMED',
    );
    expect(
      code(() => readSigned({ ...sealed, payload: '{' }, delegationStatusReportSchema, 'X.MALFORMED', now)),
    ).toBe('X.MALFORMED');
  });
});
