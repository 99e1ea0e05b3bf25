import type { HcnEvent } from '@hcn/contracts';
import { workloadStatus } from '@hcn/domain';
import { N1, SCENARIOS, T, W, alloc, ev, recorded, service, spec } from '../testing/workload-events';
import { FoldedWorkload, WorkloadBook, applyWorkloadEvent, emptyBook } from './workloads.fold';
import { allocationRecord, workloadRecord } from './workloads.rows';

/** The book after folding `events` of workload W. */
function folded(events: readonly HcnEvent[]): WorkloadBook {
  const book = emptyBook();
  recorded(events).forEach((e) => applyWorkloadEvent(book, e));
  return book;
}

const workload = (book: WorkloadBook): FoldedWorkload => book.workloads.get(W) as FoldedWorkload;

/** The allocation_state row of allocation `n` of W. */
function allocationRow(book: WorkloadBook, n: number) {
  const { state } = workload(book);
  return allocationRecord(W, 'default', state.allocations[alloc(n)], book.allocations.get(alloc(n))!);
}

describe('workload_state row of a folded workload', () => {
  it('given a submitted workload, when mapped, then its columns come from the spec and instances wait', () => {
    const book = folded([ev.submitted(spec({ replicas: 2, priority: 7 }))]);
    const row = workloadRecord(workload(book));
    const { spec: kept, ...state } = workload(book).state;
    expect(row).toEqual({
      workload_id: W,
      namespace: 'default',
      name: 'job',
      type: 'process',
      status: 'pending',
      priority: 7,
      replicas: 2,
      generation: 1,
      spec: kept,
      instances: [0, 1].map((instance) => ({
        instance,
        attempt: 0,
        status: 'pending',
        allocationId: null,
        nodeId: null,
        retries: 0,
        replace: false,
      })),
      hops: 0,
      stop_requested: false,
      deleted: false,
      state,
      submitted_at: T(0),
      updated_at: T(0),
      last_revision: 0,
    });
  });

  it('given a started allocation, when mapped, then the instance runs on its node', () => {
    const row = workloadRecord(workload(folded([ev.submitted(), ev.placed(1), ev.started(1)])));
    expect(row.status).toBe('running');
    expect(row.instances).toEqual([
      {
        instance: 0,
        attempt: 0,
        status: 'running',
        allocationId: alloc(1),
        nodeId: N1,
        retries: 0,
        replace: false,
      },
    ]);
  });

  it('given a restart request while running, when mapped, then the instance is to be replaced', () => {
    const row = workloadRecord(workload(folded([ev.submitted(), ev.placed(1), ev.started(1), ev.restart()])));
    expect(row.instances[0]).toMatchObject({ status: 'running', replace: true });
  });

  it('given a stop request, when mapped, then it is stopping and stop_requested', () => {
    const row = workloadRecord(
      workload(folded([ev.submitted(), ev.placed(1), ev.started(1), ev.stop(), ev.stopRequested(1)])),
    );
    expect(row).toMatchObject({ status: 'stopping', stop_requested: true, deleted: false });
  });

  it('given a deletion, when mapped, then it is deleted', () => {
    const row = workloadRecord(workload(folded([ev.submitted(), ev.deleted()])));
    expect(row).toMatchObject({ status: 'deleted', stop_requested: true, deleted: true });
  });

  it("given a service, when its replica's readiness turns, then its instance says so (other workloads' do not)", () => {
    const ready = (events: HcnEvent[]) => workloadRecord(workload(folded(events))).instances[0].ready;
    const base = [ev.submitted(service()), ev.placed(1), ev.started(1)];
    expect(ready(base)).toBe(false);
    expect(ready([...base, ev.ready(1)])).toBe(true);
    expect(ready([...base, ev.ready(1), ev.notReady(1)])).toBe(false);
    expect(ready([ev.submitted(), ev.placed(1), ev.started(1)])).toBeUndefined();
  });

  it.each(Object.keys(SCENARIOS))('given any step of "%s", then the status is the domain\'s', (name) => {
    const events = SCENARIOS[name];
    for (let n = 1; n <= events.length; n++) {
      const { state } = workload(folded(events.slice(0, n)));
      expect([n, workloadRecord(workload(folded(events.slice(0, n)))).status]).toEqual([
        n,
        workloadStatus(state),
      ]);
    }
  });
});

describe('allocation_state row of a folded allocation', () => {
  it('given a failed allocation, when mapped, then it has the exit code, reason and times', () => {
    const book = folded([ev.submitted(), ev.placed(1), ev.started(1), ev.failed(1)]);
    expect(allocationRow(book, 1)).toEqual({
      allocation_id: alloc(1),
      workload_id: W,
      namespace: 'default',
      instance: 0,
      attempt: 0,
      generation: 1,
      node_id: N1,
      domain_id: 'site-a',
      status: 'failed',
      cpu_millis: 500,
      memory_bytes: 1000,
      accelerators: 0,
      exit_code: 1,
      signal: null,
      reason: 'exit 1',
      pid: 101,
      placed_at: T(1),
      started_at: T(1),
      ended_at: T(2),
      updated_at: T(3),
    });
  });

  it('given a stopped allocation, when mapped, then it shows the signal and no reason', () => {
    const book = folded([ev.submitted(), ev.placed(1), ev.started(1), ev.stopRequested(1), ev.stopped(1)]);
    expect(allocationRow(book, 1)).toMatchObject({
      status: 'stopped',
      signal: 'SIGTERM',
      reason: null,
      exit_code: null,
      ended_at: T(4),
    });
  });

  it('given a lost allocation, when mapped, then it has the reason and no exit code', () => {
    const book = folded([ev.submitted(), ev.placed(1), ev.lost(1)]);
    expect(allocationRow(book, 1)).toMatchObject({
      status: 'lost',
      reason: 'node offline',
      exit_code: null,
      pid: null,
      ended_at: T(3),
    });
  });
});
