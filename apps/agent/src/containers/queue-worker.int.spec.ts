import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from '@hcn/platform';
import {
  describeWithContainers,
  describeWithRedis,
  eventually,
  queueWorkerShellScript,
  redisForContainers,
  testContainerEngine,
  testRedisUrl,
  workerResults,
} from '@hcn/testing';
import type { ExecutionEvent } from '../executors/execution.types';
import { ContainerExecutor } from './container.executor';
import { ContainerRunSpec, LABELS } from './container-request';
import { DockerEngine } from './docker-engine';

// The GridCore worker in a busybox container (test/support/queue-worker.sh), run by the agent's ContainerExecutor
// with its default settings. Those create containers on the engine's default bridge network (no NetworkMode), so
// 127.0.0.1 inside is the container's own loopback: the test Redis, bound to the host's loopback, is reached
// through a proxy on the bridge's gateway, which podman names host.containers.internal.
describeWithContainers('GridCore queue worker in containers (podman, real Redis)', () => {
  describeWithRedis('through the bridge gateway', () => {
    const nodeId = randomUUID();
    const script = queueWorkerShellScript();
    let engine: DockerEngine;
    let image: string;
    let loopbackUrl: string;
    let redis: Redis;
    const events: ExecutionEvent[] = [];
    let executor: ContainerExecutor;
    let reachable: { url: string; close(): Promise<void> } | undefined;

    function spec(env: Record<string, string>, grace = 5): ContainerRunSpec {
      const workloadId = randomUUID();
      return {
        allocationId: randomUUID(),
        workloadId,
        instanceId: `${workloadId}/${env.INSTANCE_ID ?? 0}`,
        nodeId,
        command: '/bin/sh',
        args: ['-c', script],
        env,
        stopGraceSeconds: grace,
        container: { namespace: 'gridcore', image, pullPolicy: 'never', ports: [], volumes: [] },
      };
    }

    const endOf = async (id: string, timeoutMs = 60_000): Promise<ExecutionEvent> => {
      const find = () => events.find((e) => e.allocationId === id && e.kind !== 'started');
      await eventually(`allocation ${id} ended`, () => find() !== undefined, timeoutMs);
      return find() as ExecutionEvent;
    };
    const output = (id: string): string =>
      executor
        .readNewOutput(id)
        .map((c) => c.text)
        .join('');

    function task(url: string, instance: number, extra: Record<string, string> = {}) {
      return (q: { task: string; input: string; output: string }): Record<string, string> => ({
        TASK_NAME: q.task,
        NODE_ID: nodeId,
        INSTANCE_ID: String(instance),
        INPUT_REDIS_URL: url,
        OUTPUT_REDIS_URL: url,
        INPUT_QUEUE: q.input,
        OUTPUT_QUEUE: q.output,
        ...extra,
      });
    }
    function queues(): { task: string; input: string; output: string } {
      const name = `ctask-${randomUUID().slice(0, 8)}`;
      return { task: name, input: `${name}:input`, output: `${name}:output` };
    }

    beforeAll(async () => {
      const test = testContainerEngine();
      engine = new DockerEngine(test.socketPath);
      image = test.image;
      loopbackUrl = testRedisUrl();
      redis = new Redis(loopbackUrl);
      executor = new ContainerExecutor({
        engine,
        nodeId: () => nodeId,
        baseDir: mkdtempSync(join(tmpdir(), 'hcn-queue-containers-')),
        onEvent: (e) => events.push(e),
        policy: {
          allowedHostPaths: [],
          pidsLimit: 256,
          ulimits: [
            { name: 'nofile', soft: 1024, hard: 1024 },
            { name: 'nproc', soft: 1024, hard: 1024 },
          ],
        },
        cgroups: 'none',
        keepFinished: 0,
        pullBackoffMs: 60_000,
        statsIntervalMs: 1000,
      });
      // The bridge's gateway address exists on the host once a container has joined the network.
      const warmUp = spec({ INPUT_REDIS_URL: 'redis://127.0.0.1:1', INPUT_QUEUE: 'x', OUTPUT_QUEUE: 'y' });
      executor.start({ ...warmUp, args: ['-c', 'true'] });
      await endOf(warmUp.allocationId);
      const redisPort = Number(new URL(loopbackUrl).port);
      reachable = await redisForContainers(test.socketPath, redisPort, await freePort());
    }, 90_000);

    afterAll(async () => {
      await executor?.stopAll('spec over');
      await reachable?.close();
      await redis?.quit();
      if (engine) for (const c of await engine.list([`${LABELS.node}=${nodeId}`])) await engine.remove(c.id);
    });

    it("cannot reach the host's loopback: 127.0.0.1 in the container is its own (the worker fails, exit 1)", async () => {
      const q = queues();
      await redis.lpush(q.input, 'never-taken');
      const s = spec(task(loopbackUrl, 0, { WORKER_RETRIES: '1' })(q));
      executor.start(s);
      expect(await endOf(s.allocationId)).toMatchObject({ kind: 'failed', exitCode: 1 });
      expect(output(s.allocationId)).toContain('no reply from 127.0.0.1');
      expect(await redis.llen(q.input)).toBe(1);
    });

    it('3 containers drain 200 items: every item in the output exactly once', async () => {
      const q = queues();
      const items = Array.from({ length: 200 }, (_, i) => `item-${String(i).padStart(3, '0')}`);
      await redis.lpush(q.input, ...items);
      const specs = [0, 1, 2].map((i) => spec(task(reachable!.url, i)(q)));
      for (const s of specs) expect(executor.start(s)).toBe(true);
      for (const s of specs)
        expect(await endOf(s.allocationId, 120_000)).toMatchObject({ kind: 'completed', exitCode: 0 });
      const results = workerResults(await redis.lrange(q.output, 0, -1));
      expect(results.map((r) => r.item).sort()).toEqual(items);
      expect(await redis.llen(q.input)).toBe(0);
      for (const r of results) expect(r).toMatchObject({ task: q.task, node: nodeId });
      expect(new Set(results.map((r) => r.instance))).toEqual(new Set(['0', '1', '2']));
    }, 150_000);

    it('SIGTERM ends a worker after its item (exit 0); one that ignores it is killed after the grace', async () => {
      const q = queues();
      await redis.lpush(q.input, ...Array.from({ length: 100 }, (_, i) => `slow-${i}`));
      const polite = spec(task(reachable!.url, 0, { WORKER_DELAY_MS: '200', WORKER_IDLE_MS: '-1' })(q));
      const stubborn = spec(
        task(reachable!.url, 1, { WORKER_DELAY_MS: '200', WORKER_IGNORE_SIGTERM: '1' })(q),
        1,
      );
      executor.start(polite);
      executor.start(stubborn);
      await eventually(
        'both took items',
        async () => {
          const done = workerResults(await redis.lrange(q.output, 0, -1));
          return new Set(done.map((r) => r.instance)).size === 2;
        },
        30_000,
      );
      await Promise.all([
        executor.stop(polite.allocationId, 'next'),
        executor.stop(stubborn.allocationId, 'next'),
      ]);
      expect(await endOf(polite.allocationId)).toMatchObject({
        kind: 'stopped',
        endedBy: 'SIGTERM',
        exitCode: 0,
      });
      expect(await endOf(stubborn.allocationId)).toMatchObject({ kind: 'stopped', endedBy: 'SIGKILL' });
      expect(output(polite.allocationId)).toMatch(/stopped by SIGTERM after \d+ items/);
      expect(output(stubborn.allocationId)).toContain('SIGTERM ignored');
    }, 90_000);
  });
});
