import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { QUEUE_WORKER_JS, describeWithRedis, eventually, testRedisUrl, workerResults } from '@hcn/testing';
import { ProcessSandbox } from '../isolation/process-sandbox';
import { resolveWorkloadUser } from '../isolation/workload-user';
import { ExecutionEvent, ProcessExecutor, ProcessSpec } from './process.executor';

// The GridCore worker (test/support/queue-worker.js) as the agent runs a process workload: through the
// ProcessExecutor, sandboxed as the workload user, with nothing but the workload's env (GridCore's contract).
describeWithRedis('GridCore queue worker as process workloads (real Redis)', () => {
  const nodeId = randomUUID();
  let url: string;
  let redis: Redis;
  let events: ExecutionEvent[];
  let executor: ProcessExecutor;

  beforeAll(() => {
    url = testRedisUrl();
    redis = new Redis(url);
  });

  beforeEach(() => {
    events = [];
    executor = new ProcessExecutor({
      baseDir: mkdtempSync(join(tmpdir(), 'hcn-queue-worker-')),
      onEvent: (e) => events.push(e),
      sandbox: new ProcessSandbox(resolveWorkloadUser('auto'), 'none', '/hcn-spec-unused', 256),
    });
  });
  afterEach(async () => executor.stopAll('spec over'));
  afterAll(async () => redis?.quit());

  function queues(): { task: string; input: string; output: string } {
    const task = `task-${randomUUID().slice(0, 8)}`;
    return { task, input: `${task}:input`, output: `${task}:output` };
  }

  function worker(
    q: { task: string; input: string; output: string },
    instance: number,
    extra: Record<string, string> = {},
    grace = 5,
  ): ProcessSpec {
    const workloadId = randomUUID();
    return {
      allocationId: randomUUID(),
      workloadId,
      instanceId: `${workloadId}/${instance}`,
      nodeId,
      command: process.execPath,
      args: [QUEUE_WORKER_JS],
      env: {
        TASK_NAME: q.task,
        NODE_ID: nodeId,
        INSTANCE_ID: String(instance),
        INPUT_REDIS_URL: url,
        OUTPUT_REDIS_URL: url,
        INPUT_QUEUE: q.input,
        OUTPUT_QUEUE: q.output,
        ...extra,
      },
      stopGraceSeconds: grace,
    };
  }

  const endOf = async (id: string, timeoutMs = 30_000): Promise<ExecutionEvent> => {
    const find = () => events.find((e) => e.allocationId === id && e.kind !== 'started');
    await eventually(`allocation ${id} ended`, () => find() !== undefined, timeoutMs);
    return find() as ExecutionEvent;
  };

  const output = (id: string): string =>
    executor
      .readNewOutput(id)
      .map((c) => c.text)
      .join('');

  it('3 workers drain 200 items: every item in the output exactly once, each named by node and instance', async () => {
    const q = queues();
    const items = Array.from({ length: 200 }, (_, i) => `item-${String(i).padStart(3, '0')}`);
    await redis.lpush(q.input, ...items);
    const specs = [0, 1, 2].map((i) => worker(q, i, { WORKER_DELAY_MS: '5' }));
    for (const s of specs) expect(executor.start(s)).toBe(true);
    for (const s of specs)
      expect(await endOf(s.allocationId)).toMatchObject({ kind: 'completed', exitCode: 0 });
    const results = workerResults(await redis.lrange(q.output, 0, -1));
    expect(results.map((r) => r.item).sort()).toEqual(items);
    expect(await redis.llen(q.input)).toBe(0);
    for (const r of results) {
      expect(r).toMatchObject({ task: q.task, node: nodeId });
      expect(['0', '1', '2']).toContain(r.instance);
    }
    // all three took part (a 5 ms pause per item keeps any one from draining the list alone)
    expect(new Set(results.map((r) => r.instance)).size).toBe(3);
    expect(output(specs[0].allocationId)).toMatch(/input empty after \d+ items/);
  });

  it('an empty input ends the worker at once with WORKER_EXIT_CODE (default 0)', async () => {
    const q = queues();
    const ok = worker(q, 0);
    const failing = worker(q, 1, { WORKER_EXIT_CODE: '3' });
    executor.start(ok);
    executor.start(failing);
    expect(await endOf(ok.allocationId)).toMatchObject({ kind: 'completed', exitCode: 0 });
    expect(await endOf(failing.allocationId)).toMatchObject({ kind: 'failed', exitCode: 3 });
  });

  it('SIGTERM: the worker finishes its item and exits 0; nothing is lost', async () => {
    const q = queues();
    const items = Array.from({ length: 50 }, (_, i) => `slow-${i}`);
    await redis.lpush(q.input, ...items);
    const s = worker(q, 0, { WORKER_DELAY_MS: '200', WORKER_IDLE_MS: '-1' });
    executor.start(s);
    await eventually('a first result', async () => (await redis.llen(q.output)) > 0, 15_000);
    await executor.stop(s.allocationId, 'next task');
    expect(await endOf(s.allocationId)).toMatchObject({ kind: 'stopped', endedBy: 'SIGTERM', exitCode: 0 });
    const done = await redis.llen(q.output);
    expect(done + (await redis.llen(q.input))).toBe(items.length);
    expect(output(s.allocationId)).toMatch(/stopped by SIGTERM after \d+ items/);
  });

  it('WORKER_IGNORE_SIGTERM=1: the worker keeps going and is killed after the grace', async () => {
    const q = queues();
    await redis.lpush(q.input, ...Array.from({ length: 100 }, (_, i) => `stubborn-${i}`));
    const s = worker(q, 0, { WORKER_DELAY_MS: '100', WORKER_IGNORE_SIGTERM: '1' }, 1);
    executor.start(s);
    await eventually('a first result', async () => (await redis.llen(q.output)) > 0, 15_000);
    const stopped = Date.now();
    await executor.stop(s.allocationId, 'next task');
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(900);
    expect(await endOf(s.allocationId)).toMatchObject({ kind: 'stopped', endedBy: 'SIGKILL' });
    expect(output(s.allocationId)).toContain('SIGTERM ignored');
  });
});
