import { WorkloadEvent, WorkloadState, evolveWorkload, initialWorkloadState } from '@hcn/domain';
import { SCENARIOS, T, W, alloc, ev, recorded } from '../testing/workload-events';
import { WorkloadBook, applyWorkloadEvent, emptyBook } from './workloads.fold';

describe('workloads fold', () => {
  it.each(Object.keys(SCENARIOS))('keeps the state the workload decider folds: %s', (name) => {
    // given the events of one workload stream
    const events = recorded(SCENARIOS[name]);
    // when the projection folds them one by one
    const book = emptyBook();
    events.forEach((e) => applyWorkloadEvent(book, e));
    // then its state is the domain's fold of the same events, and the row times are the records'
    const domain = events.reduce(
      (s: WorkloadState, e) => evolveWorkload(s, e as WorkloadEvent),
      initialWorkloadState,
    );
    expect(book.workloads.get(W)).toEqual({
      state: domain,
      submittedAt: T(0),
      updatedAt: T(events.length - 1),
      lastRevision: events.length - 1,
    });
  });

  it('given a folded stream, when it is applied again, then nothing changes', () => {
    const events = recorded(
      SCENARIOS['two replicas: one completes, one fails, retries by policy, then fails for good'],
    );
    const book: WorkloadBook = emptyBook();
    events.forEach((e) => applyWorkloadEvent(book, e));
    const snapshot = JSON.stringify([...book.workloads.values(), ...book.allocations.values()]);
    expect(events.map((e) => applyWorkloadEvent(book, e)).filter(Boolean)).toEqual([]);
    expect(JSON.stringify([...book.workloads.values(), ...book.allocations.values()])).toBe(snapshot);
    expect(book.allocations.get(alloc(3))).toEqual({
      placedAt: T(8),
      startedAt: T(1),
      endedAt: T(2),
      signal: null,
      pid: 103,
      updatedAt: T(10),
    });
  });

  it('given a placed allocation, when it is lost, then it ended when it was declared lost', () => {
    const book = emptyBook();
    recorded([ev.submitted(), ev.placed(1), ev.lost(1)]).forEach((e) => applyWorkloadEvent(book, e));
    expect(book.allocations.get(alloc(1))).toMatchObject({ endedAt: T(3), updatedAt: T(2) });
    expect(book.changedAllocations).toEqual(new Map([[alloc(1), W]]));
  });

  it('given an ended allocation, when a later end is reported, then the first end stays', () => {
    const book = emptyBook();
    const events = recorded([ev.submitted(), ev.placed(1), ev.started(1), ev.failed(1), ev.stopped(1)]);
    events.forEach((e) => applyWorkloadEvent(book, e));
    expect(book.allocations.get(alloc(1))).toMatchObject({ endedAt: T(2), signal: null, updatedAt: T(4) });
    expect(book.workloads.get(W)?.state.allocations[alloc(1)].status).toBe('failed');
  });

  it('given no submission, when events of the workload come, then they are skipped', () => {
    const book = emptyBook();
    const [, placed, started] = recorded([ev.submitted(), ev.placed(1), ev.started(1)]);
    expect([placed, started].map((e) => applyWorkloadEvent(book, e))).toEqual([undefined, undefined]);
    expect(book.workloads.size + book.allocations.size).toBe(0);
  });
});
