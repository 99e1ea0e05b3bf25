import { workloadSpecSchema } from '@hcn/contracts';
import { WorkloadState, initialWorkloadState } from '@hcn/domain';
import type { PlacementService } from '../scheduling/placement.service';
import { DuePlacements } from './due-placements';

const n1 = '00000000-0000-4000-8000-0000000000f1';
const n2 = '00000000-0000-4000-8000-0000000000f2';

function waiting(nodes?: string[]): WorkloadState {
  const spec = workloadSpecSchema.parse({
    name: 'w',
    command: 'x',
    resources: { cpuMillis: 1000, memoryBytes: 1 },
    ...(nodes ? { constraints: { nodes } } : {}),
  });
  return { ...initialWorkloadState, exists: true, spec };
}

describe('DuePlacements.retryUnschedulable', () => {
  const workloads = new Map([
    ['free', waiting()],
    ['on-n1', waiting([n1])],
    ['on-n2', waiting([n2])],
  ]);
  const fresh = () => {
    const due = new DuePlacements(workloads, {} as PlacementService, () => new Date());
    for (const id of workloads.keys()) due.waitsForCapacity(id, true);
    return due;
  };

  it.each<[string, string | undefined, number]>([
    ['capacity of no one node (a domain changed): all', undefined, 3],
    ['capacity on n1: the free one and the one pinned to n1', n1, 2],
    ['capacity on a third node: only the free one', '00000000-0000-4000-8000-0000000000f3', 1],
  ])('%s', (...[_, nodeId, expected]) => {
    const due = fresh();
    due.retryUnschedulable(nodeId);
    expect(due.size).toBe(expected);
  });
});

describe('DuePlacements.waitsForCapacity (capacity signalled before the saga read the decision)', () => {
  const at = (commit: number) => ({ commit: BigInt(commit), prepare: 0n });
  const due = () => new DuePlacements(new Map([['w', waiting()]]), {} as PlacementService, () => new Date());

  it.each<[string, number | undefined, number | undefined, boolean, number]>([
    ['capacity after the view the decision was taken on: due at once', 120, 100, true, 1],
    ['capacity the deciding view had seen: waits for the next signal', 90, 100, true, 0],
    ['capacity at the very position decided on: seen, waits', 100, 100, true, 0],
    ['no capacity signalled yet: waits', undefined, 100, true, 0],
    ['no position known for the decision: waits', 120, undefined, true, 0],
    ['no longer waiting: nothing due', 120, 100, false, 0],
  ])('%s', (...[_, signalledAt, decidedOn, waits, expected]) => {
    const queue = due();
    if (signalledAt !== undefined) queue.retryUnschedulable(undefined, at(signalledAt)); // nothing waits yet
    expect(queue.size).toBe(0);
    queue.waitsForCapacity('w', waits, decidedOn === undefined ? undefined : at(decidedOn));
    expect(queue.size).toBe(expected);
  });

  it('keeps the latest signal, and tries a workload once when it starts waiting, not on every event after', () => {
    const queue = due();
    queue.retryUnschedulable(undefined, at(120));
    queue.retryUnschedulable(undefined, at(110)); // an older position does not move it back
    queue.waitsForCapacity('w', true, at(115));
    expect(queue.size).toBe(1);
    const again = due();
    again.retryUnschedulable(undefined, at(120));
    again.waitsForCapacity('w', true, at(130)); // decided after the signal: waits
    again.waitsForCapacity('w', true, at(100)); // still waiting (a later event of it): not a new start
    expect(again.size).toBe(0);
  });
});
