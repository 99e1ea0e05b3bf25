import { NODE_LOSS_ACTOR_ID } from '@hcn/contracts';
import { N1, SCENARIOS, T, W, alloc, ev, recorded, spec } from '../testing/workload-events';
import { NodeRuntimeChange, evolveLastError } from './node-runtime.fold';
import { applyWorkloadEvent, emptyBook } from './workloads.fold';

/** The runtime changes a stream's events give, as `kind allocation-number`. */
function changes(events: ReturnType<typeof recorded>): NodeRuntimeChange[] {
  const book = emptyBook();
  events.forEach((e) => applyWorkloadEvent(book, e));
  return book.runtime;
}

describe('node runtime fold', () => {
  it('notes each allocation becoming active and ending, with failures and their reason', () => {
    const got = changes(
      recorded(SCENARIOS['two replicas: one completes, one fails, retries by policy, then fails for good']),
    );
    expect(got.map((c) => c.kind)).toEqual(['placed', 'placed', 'ended', 'failed', 'placed', 'failed']);
    expect(got.every((c) => c.nodeId === N1)).toBe(true);
    expect(got[5]).toEqual({
      kind: 'failed',
      nodeId: N1,
      at: T(10),
      error: { allocationId: alloc(3), workloadId: W, reason: 'exit 1', at: T(2) },
    });
    // the last error: set by a failure, cleared by a placement or a good end
    const last = got.reduce(
      (error, change) => evolveLastError(error, change),
      null as ReturnType<typeof evolveLastError>,
    );
    expect(last).toMatchObject({ allocationId: alloc(3) });
  });

  it('gives nothing for events that do not move an allocation in or out of the active statuses', () => {
    const got = changes(
      recorded([ev.submitted(spec()), ev.placed(1), ev.started(1), ev.stopRequested(1), ev.stopped(1)]),
    );
    expect(got.map((c) => c.kind)).toEqual(['placed', 'ended']);
  });

  it('tells a loss with the node (offline, deregistered) from one the node or a runtime check reports', () => {
    const events = recorded([ev.submitted(spec()), ev.placed(1), ev.lost(1)]);
    const byNodeLoss = events.map((e, i) =>
      i === 2
        ? { ...e, metadata: { ...e.metadata, actor: { kind: 'system' as const, id: NODE_LOSS_ACTOR_ID } } }
        : e,
    );
    expect(changes(byNodeLoss).map((c) => c.kind)).toEqual(['placed', 'released']);
    expect(changes(events)[1]).toMatchObject({ kind: 'failed', error: { reason: 'node offline', at: T(3) } });
    const error = { allocationId: alloc(9), workloadId: W, reason: 'x', at: T(1) };
    expect(evolveLastError(error, { kind: 'released', nodeId: N1, at: T(5) })).toBe(error);
  });
});
