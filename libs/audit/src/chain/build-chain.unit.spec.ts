import { LogBuilder } from '../testing/recorded';
import { buildChain } from './build-chain';
import { renderChainText } from './render-chain';

const W = '11111111-1111-4111-8111-111111111111';
const N = '33333333-3333-4333-8333-333333333333';
const alloc = (attempt: number) => `44444444-4444-4444-8444-00000000000${attempt}`;
const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s)).toISOString();
const ws = `workload-${W}`;

function submitted(log: LogBuilder): void {
  log.add(
    ws,
    'WorkloadSubmitted',
    { workloadId: W, spec: { name: 'job', namespace: 'team-a', replicas: 1 } },
    at(0),
  );
}

function placed(log: LogBuilder, attempt: number, s: number): void {
  const base = { workloadId: W, instance: 0, attempt };
  const candidates = [{ id: N, kind: 'node', accepted: true, score: 50 }];
  log.add(
    ws,
    'WorkloadDelegated',
    { ...base, hop: 0, fromScope: null, to: 'site', toKind: 'domain', policy: 'spread', candidates },
    at(s),
  );
  log.add(
    ws,
    'WorkloadDelegated',
    { ...base, hop: 1, fromScope: 'site', to: N, toKind: 'node', policy: 'spread', candidates },
    at(s),
  );
  log.add(
    ws,
    'AllocationPlaced',
    { ...base, allocationId: alloc(attempt), nodeId: N, domainId: 'site' },
    at(s),
  );
}

function unschedulable(log: LogBuilder, attempt: number, s: number): void {
  const base = { workloadId: W, instance: 0, attempt };
  log.add(
    ws,
    'DelegationRejected',
    { ...base, scope: '(root)', reason: 'SCHEDULE.NO_FEASIBLE_NODE', detail: 'none', candidates: [] },
    at(s),
  );
  log.add(
    ws,
    'WorkloadUnschedulable',
    { ...base, reasons: { 'FILTER.NODE_OFFLINE': 1 }, detail: 'x' },
    at(s),
  );
}

function ended(log: LogBuilder, type: string, attempt: number, s: number): void {
  const data = {
    workloadId: W,
    allocationId: alloc(attempt),
    nodeId: N,
    reason: 'r',
    exitCode: 1,
    signal: null,
  };
  log.add(ws, type, { ...data, endedAt: at(s), lostAt: at(s), endedBy: 'SIGTERM' }, at(s));
}

describe('buildChain', () => {
  it.each([
    ['a first placement', (_l: LogBuilder) => undefined, 0, 'submission'],
    ['a retry after an unschedulable verdict', (l: LogBuilder) => unschedulable(l, 0, 1), 0, 'retry'],
    [
      'a reschedule after node loss',
      (l: LogBuilder) => (placed(l, 0, 1), ended(l, 'AllocationLost', 0, 2)),
      1,
      'reschedule-after-node-loss',
    ],
    [
      'a restart by policy after a failure',
      (l: LogBuilder) => (placed(l, 0, 1), ended(l, 'AllocationFailed', 0, 2)),
      1,
      'restart-policy',
    ],
    [
      'a replacement after a restart request',
      (l: LogBuilder) => {
        placed(l, 0, 1);
        l.add(ws, 'WorkloadRestartRequested', { workloadId: W, reason: 'ops' }, at(2));
        ended(l, 'AllocationStopped', 0, 3);
      },
      1,
      'replacement',
    ],
  ])('given %s, then the last decision names its trigger', (_name, history, attempt, trigger) => {
    const log = new LogBuilder();
    submitted(log);
    history(log);
    placed(log, attempt, 10);
    const chain = buildChain(log.events);
    const last = chain.decisions[chain.decisions.length - 1];
    expect([last.attempt, last.trigger]).toEqual([attempt, trigger]);
    expect(last.hops.map((h) => [h.hop, h.fromScope, h.to])).toEqual([
      [0, null, 'site'],
      [1, 'site', N],
    ]);
  });

  it('numbers hops across decisions and keeps actors, ids and times on every entry', () => {
    const log = new LogBuilder();
    submitted(log);
    placed(log, 0, 1);
    ended(log, 'AllocationLost', 0, 2);
    placed(log, 1, 3);
    const chain = buildChain(log.events);
    expect(chain.decisions.flatMap((d) => d.hops.map((h) => h.seq))).toEqual([0, 1, 2, 3]);
    expect(chain.decisions[1].hops[0]).toMatchObject({
      at: at(3),
      actor: { kind: 'user', id: 'spec' },
      correlationId: 'corr',
      causationId: 'cause',
      revision: 5,
    });
    const text = renderChainText(chain);
    expect(text).toContain('decision 1: instance 0 attempt 1 (reschedule-after-node-loss)');
    expect(text).toContain(`allocation ${alloc(0)} lost: r`);
  });

  it("shows a service's readiness turns in the timeline; they end nothing (a later failure still triggers the restart)", () => {
    const log = new LogBuilder();
    submitted(log);
    placed(log, 0, 1);
    const base = { workloadId: W, allocationId: alloc(0), nodeId: N };
    log.add(ws, 'AllocationReady', { ...base, at: at(2) }, at(2));
    log.add(ws, 'AllocationNotReady', { ...base, reason: 'HTTP 503', at: at(3) }, at(3));
    ended(log, 'AllocationFailed', 0, 4);
    placed(log, 1, 5);
    const chain = buildChain(log.events);
    const allocations = chain.timeline.flatMap((e) => (e.entry === 'allocation' ? [e.allocation] : []));
    expect(allocations.map((a) => [a.kind, a.detail])).toEqual([
      ['ready', 'readiness probe passes'],
      ['not-ready', 'not ready: HTTP 503'],
      ['failed', 'r (exit 1, signal -)'],
    ]);
    expect(chain.decisions[1].trigger).toBe('restart-policy');
  });

  it('given a stream without a submission, then AUDIT.WORKLOAD_NOT_FOUND', () => {
    expect(() => buildChain([])).toThrow(expect.objectContaining({ code: 'AUDIT.WORKLOAD_NOT_FOUND' }));
  });
});
