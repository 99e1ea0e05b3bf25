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
