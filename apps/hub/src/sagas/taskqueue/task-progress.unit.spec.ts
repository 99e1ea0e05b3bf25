import type { TaskSpec } from '@hcn/contracts';
import type { TaskView } from '@hcn/domain';
import type { QueueMeter } from '@hcn/queue-meter';
import type { HubConfig } from '../../config';
import { TaskProgress } from './task-progress';

/** A QueueMeter that answers from a table and notes each call (the Redis adapter has its own int spec). */
function countingMeter(lengths: Record<string, Record<string, number>>) {
  const calls: Array<[string, string[]]> = [];
  const meter: QueueMeter = {
    lengths: async (url, names) => {
      calls.push([url, [...names]]);
      return Object.fromEntries(names.map((n) => [n, lengths[url]?.[n] ?? 0]));
    },
    close: async () => undefined,
  };
  return { meter, calls };
}

const task = (spec: Partial<TaskSpec>): TaskView => ({
  taskId: 't-1',
  spec: { name: 'work', command: ['true'], ...spec } as TaskSpec,
  status: 'running',
  round: 1,
  launches: {},
  workloads: [],
});
const config = { agentSecret: 'a-secret-of-at-least-32-characters!!' } as HubConfig;
const clock = () => new Date('2026-11-26T12:00:00Z');

describe('TaskProgress sampling', () => {
  it.each([
    [
      'input and output on one Redis: one pipelined call',
      { inputRedis: 'redis://a:6379', inputQueue: 'in', outputQueue: 'out' },
      [['redis://a:6379', ['in', 'out']]],
      7,
    ],
    [
      'on two Redis servers: one call each',
      { inputRedis: 'redis://a:6379', outputRedis: 'redis://b:6379', inputQueue: 'in', outputQueue: 'out' },
      [
        ['redis://a:6379', ['in']],
        ['redis://b:6379', ['out']],
      ],
      7,
    ],
    [
      'no output queue: only the input measured, output 0',
      { inputRedis: 'redis://a:6379', inputQueue: 'in' },
      [['redis://a:6379', ['in']]],
      7,
    ],
  ])('%s', async (_, spec, expectedCalls, inputLeft) => {
    const { meter, calls } = countingMeter({
      'redis://a:6379': { in: 7, out: 3 },
      'redis://b:6379': { out: 5 },
    });
    const progress = new TaskProgress(meter, clock, config);
    await progress.sample(task(spec));
    expect(calls).toEqual(expectedCalls);
    expect(progress.progressOf('t-1')).toMatchObject({ inputLeft, outputDone: 0 });
  });
});
