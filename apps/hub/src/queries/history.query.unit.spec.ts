import { bucketUsage, UsageSample } from './history.query';

const sample = (
  nodeId: string,
  at: number,
  cpuUsage: number,
  mem: number,
  dev: number[] = [],
): UsageSample => ({
  nodeId,
  at,
  cpuUsage,
  memoryUsedBytes: mem,
  deviceUtilization: dev,
});

describe('bucketUsage', () => {
  it('averages each node within a bucket, weights CPU by cores, sums memory, leaves empty buckets null', () => {
    const cores = new Map([
      ['a', 1],
      ['b', 3],
    ]);
    const samples = [
      sample('a', 0, 0.2, 100),
      sample('a', 500, 0.4, 300),
      sample('b', 900, 1, 1000, [0.5, 1]),
      sample('b', 2500, 0.5, 50),
      sample('a', 99_999, 1, 1), // outside the window
    ];
    const out = bucketUsage(samples, cores, 0, 1000, 3);
    expect(out.cpu).toEqual([(0.3 * 1 + 1 * 3) / 4, null, 0.5]);
    expect(out.memoryUsedBytes).toEqual([1200, null, 50]);
    expect(out.accelerator).toEqual([0.75, null, null]);
  });

  it('has no accelerator series when no heartbeat reported a device', () => {
    expect(bucketUsage([sample('a', 0, 0.1, 1)], new Map(), 0, 1000, 2).accelerator).toBeNull();
  });
});
