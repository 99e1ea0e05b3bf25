import { containerEnding } from './container-ending';
import type { ContainerStatus } from './engine';

const base = { allocationId: 'a-1', at: '2024-01-01T00:00:00.000Z' };
const exited = (exitCode: number): ContainerStatus => ({
  id: 'c-1',
  name: 'hcn-a-1',
  labels: {},
  running: false,
  live: false,
  pid: 0,
  exitCode,
  oomKilled: false,
  error: '',
  startedAt: '2024-01-01T00:00:00.000Z',
  finishedAt: '2024-01-01T00:00:01.000Z',
  ports: [],
});

describe('containerEnding of a stopped container', () => {
  it.each([
    // [what the executor saw, the exit code, endedBy reported]
    ['SIGTERM', 0, 'SIGTERM'],
    ['SIGTERM', 143, 'SIGTERM'],
    ['SIGKILL', 137, 'SIGKILL'],
    // the engine said it ended only once the grace was over: it exited by itself after the SIGTERM
    ['SIGKILL', 0, 'SIGTERM'],
    ['SIGKILL', 143, 'SIGTERM'],
  ] as const)('asked %s, exit code %i: ended by %s', (endedBy, exitCode, reported) => {
    const run = { memoryBytes: 0, stopping: { reason: 'next', endedBy } };
    expect(containerEnding(base, run, exited(exitCode), undefined)).toEqual({
      ...base,
      kind: 'stopped',
      reason: 'next',
      endedBy: reported,
      exitCode,
      signal: exitCode > 128 ? (exitCode === 137 ? 'SIGKILL' : 'SIGTERM') : null,
    });
  });

  it('keeps what it asked when the engine gave no status', () => {
    const run = { memoryBytes: 0, stopping: { reason: 'next', endedBy: 'SIGKILL' as const } };
    expect(containerEnding(base, run, undefined, undefined)).toMatchObject({
      kind: 'stopped',
      endedBy: 'SIGKILL',
      exitCode: null,
    });
  });
});
