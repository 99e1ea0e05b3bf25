import { workloadStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import { freePort } from '@hcn/platform';
import {
  describeWithContainers,
  describeWithPostgres,
  describeWithRedis,
  eventuallyExpect,
  queueWorkerShellScript,
  redisForContainers,
  testContainerEngine,
  testRedisUrl,
  workerResults,
} from '@hcn/testing';
import Redis from 'ioredis';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';
import { LABELS } from './containers/container-request';
import { DockerEngine } from './containers/docker-engine';

const ITEMS = 200;

/** The environment a container was created with (the engine's inspect: Config.Env), by variable. */
async function containerEnv(socketPath: string, id: string): Promise<Record<string, string>> {
  const body = await new Promise<string>((done, fail) => {
    const req = request({ socketPath, path: `/containers/${id}/json`, timeout: 5000 }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => done(text));
    });
    req.on('error', fail);
    req.end();
  });
  const env = (JSON.parse(body) as { Config?: { Env?: string[] } }).Config?.Env ?? [];
  return Object.fromEntries(env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

/**
 * GridCore's flow with container tasks, end to end on real parts: a hub with its projector (real PostgreSQL), two
 * real agents whose container runtime is the test's podman, the busybox queue worker in the local image, a real
 * Redis (reached from the containers through a proxy on the bridge's gateway). `next` fans the task out as exactly
 * 2 containers per 2-core node (INSTANCE_ID 0..1), every item reaches the output once, and `next` to the second task
 * stops them: SIGTERM, and SIGKILL after the grace for the instance that ignores SIGTERM.
 */
describeWithPostgres('task queues with container tasks (hub + agents + podman + Redis)', () => {
  describeWithContainers('on two nodes with an engine', () => {
    describeWithRedis('with Redis', () => {
      const { socketPath, image } = testContainerEngine();
      const engine = new DockerEngine(socketPath);
      const bus = new MemoryMessageBus();
      const dirs: string[] = [];
      const agents: Agent[] = [];
      let h: HubHarness;
      let redis: Redis;
      let reachable: { gateway: string; url: string; close(): Promise<void> } | undefined;
      /** Redis as both the containers and the hub (sampling progress) reach it: the proxy on the bridge's gateway. */
      let redisUrl: string;
      let queueId: string;
      const prefix = `tqc-e2e-${process.pid}`;
      const q = (name: string) => `${prefix}:${name}`;

      async function startAgent(): Promise<Agent> {
        const dataDir = mkdtempSync(join(tmpdir(), 'hcn-tqc-agent-'));
        dirs.push(dataDir);
        const config = loadAgentConfig({
          HCN_HUB_URL: h.hub.url,
          HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
          HCN_DOMAIN: 'grid-containers',
          HCN_DATA_DIR: dataDir,
          HCN_CPU_CORES: '2',
          DOCKER_HOST: `unix://${socketPath}`,
        });
        const agent = new Agent(config, bus);
        await agent.start();
        agents.push(agent);
        return agent;
      }

      beforeAll(async () => {
        h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
        redis = new Redis(testRedisUrl());
        await startAgent();
        await startAgent();
        // the bridge's gateway address exists on the host once a container has joined the network
        const warmUp = await h.request('POST', '/v1/workloads', {
          name: 'warm-up',
          type: 'container',
          image,
          pullPolicy: 'never',
          command: '/bin/sh',
          args: ['-c', 'true'],
          resources: { cpuMillis: 250, memoryBytes: 16 * 2 ** 20 },
        });
        expect(warmUp.status).toBe(201);
        await eventuallyExpect(async () => {
          const view = await h.request('GET', `/v1/workloads/${warmUp.body.workloadId}`);
          expect(view.body.status).toBe('completed');
        }, 30_000);
        const redisPort = Number(new URL(testRedisUrl()).port);
        const listenPort = await freePort();
        reachable = await redisForContainers(socketPath, redisPort, listenPort);
        // by address, not as host.containers.internal: the hub resolves no such name, and samples the progress too
        redisUrl = `redis://${reachable.gateway}:${listenPort}`;
      }, 90_000);
      afterAll(async () => {
        for (const agent of agents) await agent.stop();
        await h?.close();
        await bus.close();
        await reachable?.close();
        await redis?.quit();
        for (const agent of agents)
          for (const c of await engine.list([`${LABELS.node}=${agent.nodeId}`])) await engine.remove(c.id);
        dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
      });

      const queue = async () => (await h.request('GET', `/v1/taskqueues/${queueId}`)).body;
      const task = async (taskId: string) =>
        (await h.request('GET', `/v1/taskqueues/${queueId}/tasks/${taskId}`)).body;
      const worker = (name: string, env: Record<string, string>) => ({
        name,
        image,
        pullPolicy: 'never',
        command: '/bin/sh',
        args: ['-c', queueWorkerShellScript()],
        env,
        memoryBytes: 32 * 1024 * 1024,
        inputRedis: redisUrl,
        outputRedis: redisUrl,
        inputQueue: q(`${name}:in`),
        outputQueue: q(`${name}:out`),
        stopGraceSeconds: 4,
      });
      /** The live containers of a task's workload on one node. */
      const liveContainers = async (nodeId: string, workloadId: string) =>
        (await engine.list([`${LABELS.node}=${nodeId}`, `${LABELS.workload}=${workloadId}`])).filter(
          (c) => c.live,
        );
      let first: string;
      let second: string;

      it('queues two container tasks, pending', async () => {
        const created = await h.request('POST', '/v1/taskqueues', { name: 'boxed', namespace: 'grid' });
        expect(created.status).toBe(201);
        queueId = created.body.queueId;
        const add = (spec: unknown) => h.request('POST', `/v1/taskqueues/${queueId}/tasks`, spec);
        // instances with INSTANCE_ID 1 ignore SIGTERM (the worker ignores it when the variable is "1")
        const a = await add(
          worker('first', { WORKER_IDLE_MS: '-1', WORKER_IGNORE_SIGTERM: '$(HCN_INSTANCE_INDEX)' }),
        );
        expect(a.status).toBe(201);
        first = a.body.taskId;
        const b = await add(worker('second', { WORKER_IDLE_MS: '-1' }));
        expect(b.status).toBe(201);
        second = b.body.taskId;
        await eventuallyExpect(async () =>
          expect((await queue()).tasks.map((t: { status: string }) => t.status)).toEqual([
            'pending',
            'pending',
          ]),
        );
      });

      it('next runs exactly 2 containers per 2-core node with INSTANCE_ID 0..1; every item reaches the output once', async () => {
        const items = Array.from({ length: ITEMS }, (_, i) => `item-${i}`);
        await redis.lpush(q('first:in'), ...items);
        const next = await h.request('POST', `/v1/taskqueues/${queueId}/next`, {});
        expect(next.status).toBe(200);
        expect(next.body.current).toBe(first);
        await eventuallyExpect(async () => {
          const t = await task(first);
          expect(t.nodes).toHaveLength(2);
          for (const node of t.nodes) expect(node.instances).toEqual(['running', 'running']);
          expect(t.instances).toEqual({ running: 4 });
        }, 30_000);
        const t = await task(first);
        const nodes = agents.map((a) => a.nodeId).sort();
        expect(t.nodes.map((n: { nodeId: string }) => n.nodeId).sort()).toEqual(nodes);
        for (const node of t.nodes as Array<{ nodeId: string; workloadId: string }>) {
          const containers = await liveContainers(node.nodeId, node.workloadId);
          expect(containers).toHaveLength(2);
          const envs = await Promise.all(containers.map((c) => containerEnv(socketPath, c.id)));
          expect(envs.map((e) => e.INSTANCE_ID).sort()).toEqual(['0', '1']);
          for (const env of envs)
            expect(env).toMatchObject({
              TASK_NAME: 'first',
              NODE_ID: node.nodeId,
              INPUT_REDIS_URL: redisUrl,
              OUTPUT_REDIS_URL: redisUrl,
              INPUT_QUEUE: q('first:in'),
              OUTPUT_QUEUE: q('first:out'),
              WORKER_IGNORE_SIGTERM: env.INSTANCE_ID,
            });
        }
        await eventuallyExpect(async () => expect(await redis.llen(q('first:out'))).toBe(ITEMS), 90_000);
        const results = workerResults(await redis.lrange(q('first:out'), 0, -1));
        expect(results.map((r) => r.item).sort()).toEqual([...items].sort());
        expect(await redis.llen(q('first:in'))).toBe(0);
        for (const r of results) expect(r.task).toBe('first');
        const seen = new Set(results.map((r) => `${r.node}/${r.instance}`));
        const expected = nodes.flatMap((n) => [`${n}/0`, `${n}/1`]);
        for (const s of seen) expect(expected).toContain(s);
        // every container took part (they all poll the same list; 200 items leave each a share)
        expect([...seen].sort()).toEqual(expected.sort());
        await eventuallyExpect(async () =>
          expect((await task(first)).progress).toMatchObject({ inputLeft: 0, outputDone: ITEMS }),
        );
      }, 150_000);

      it('next stops the containers (SIGKILL after the grace for the ones ignoring SIGTERM) and starts the second', async () => {
        const launched = ((await task(first)).nodes as Array<{ nodeId: string; workloadId: string }>).map(
          (n) => ({
            ...n,
          }),
        );
        const next = await h.request('POST', `/v1/taskqueues/${queueId}/next`, {});
        expect(next.body).toMatchObject({ current: second, events: ['TaskCompleted', 'TaskStarted'] });
        await eventuallyExpect(async () => {
          for (const { workloadId } of launched) {
            const ends = (await h.store.readStream(workloadStream(workloadId))).filter(
              (e) => e.type === 'AllocationStopped',
            );
            expect(ends).toHaveLength(2);
          }
        }, 30_000);
        for (const { nodeId, workloadId } of launched) {
          const events = await h.store.readStream(workloadStream(workloadId));
          const placed = new Map(
            events
              .filter((e) => e.type === 'AllocationPlaced')
              .map((e) => [e.data.allocationId, e.data.instance]),
          );
          const endedBy = events
            .filter((e) => e.type === 'AllocationStopped')
            .map((e) => [placed.get(e.data.allocationId), e.data.endedBy, e.data.exitCode])
            .sort();
          // instance 0 finished its item and exited 0 on SIGTERM; instance 1 ignored it and was killed (128 + 9)
          expect(endedBy).toEqual([
            [0, 'SIGTERM', 0],
            [1, 'SIGKILL', 137],
          ]);
          expect(await liveContainers(nodeId, workloadId)).toEqual([]);
          // what each container wrote reaches the hub: the worker names its node and INSTANCE_ID in every line
          await eventuallyExpect(async () => {
            const logs = (await h.request('GET', `/v1/workloads/${workloadId}/logs?lines=20`)).body;
            const byInstance = new Map<number, string>(
              logs.allocations.map((a: { allocationId: string; lines: { line: string }[] }) => [
                placed.get(a.allocationId),
                a.lines.map((l) => l.line).join('\n'),
              ]),
            );
            expect(byInstance.get(0)).toMatch(
              new RegExp(`\\[${nodeId}/0\\]: stopped by SIGTERM after \\d+ items`),
            );
            expect(byInstance.get(1)).toContain(`[${nodeId}/1]: SIGTERM ignored (WORKER_IGNORE_SIGTERM=1)`);
          }, 15_000);
        }
        await eventuallyExpect(async () => {
          const t = await task(second);
          expect(t.status).toBe('running');
          expect(t.instances).toEqual({ running: 4 });
        }, 30_000);
        expect((await queue()).tasks.map((t: { status: string }) => t.status)).toEqual([
          'completed',
          'running',
        ]);
        await redis.lpush(q('second:in'), 'after-next');
        await eventuallyExpect(async () => {
          const [result] = workerResults(await redis.lrange(q('second:out'), 0, -1));
          expect(result).toMatchObject({ item: 'after-next', task: 'second' });
        }, 30_000);
      }, 90_000);

      it("deleting the queue stops the running task's containers", async () => {
        const launched = (await task(second)).nodes as Array<{ nodeId: string; workloadId: string }>;
        expect(launched).toHaveLength(2);
        const deleted = await h.request('DELETE', `/v1/taskqueues/${queueId}`, {});
        expect(deleted.status).toBe(200);
        await eventuallyExpect(async () => {
          for (const { nodeId, workloadId } of launched) {
            const ends = (await h.store.readStream(workloadStream(workloadId))).filter(
              (e) => e.type === 'AllocationStopped',
            );
            expect(ends.map((e) => e.data.endedBy)).toEqual(['SIGTERM', 'SIGTERM']);
            expect(await liveContainers(nodeId, workloadId)).toEqual([]);
          }
        }, 30_000);
        expect((await queue()).tasks.map((t: { status: string }) => t.status)).toEqual([
          'completed',
          'cancelled',
        ]);
      }, 60_000);
    });
  });
});
