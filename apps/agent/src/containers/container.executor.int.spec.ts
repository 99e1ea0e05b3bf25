import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { get } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AllocationLimits, ContainerPlacement } from '@hcn/contracts';
import { startPodmanService } from '@hcn/platform';
import { describeWithContainers, eventually, testContainerEngine } from '@hcn/testing';
import type { ExecutionEvent } from '../executors/execution.types';
import { detectCgroupMode } from '../isolation/cgroups';
import { ContainerExecutor } from './container.executor';
import { ContainerRunSpec, LABELS } from './container-request';
import { DockerEngine } from './docker-engine';

const MiB = 1024 * 1024;

describeWithContainers('ContainerExecutor against podman (Docker Engine API)', () => {
  const { socketPath, image } = testContainerEngine();
  const engine = new DockerEngine(socketPath);
  const nodeId = randomUUID();
  const cgroups = detectCgroupMode();
  let events: ExecutionEvent[];

  function executor(sink?: ExecutionEvent[], mode = cgroups): ContainerExecutor {
    return new ContainerExecutor({
      engine,
      nodeId: () => nodeId,
      baseDir: mkdtempSync(join(tmpdir(), 'hcn-containers-')),
      onEvent: (e) => (sink ?? events).push(e),
      policy: {
        allowedHostPaths: ['/tmp/hcn-allowed'],
        pidsLimit: 256,
        ulimits: [
          { name: 'nofile', soft: 1024, hard: 1024 },
          { name: 'nproc', soft: 1024, hard: 1024 },
        ],
        cgroupParent: mode === 'none' ? undefined : '/hcn-spec',
      },
      cgroups: mode,
      keepFinished: 1,
      pullBackoffMs: 60_000,
      statsIntervalMs: 300,
    });
  }

  function spec(
    script: string,
    over: Partial<ContainerPlacement> = {},
    grace = 2,
    limits: AllocationLimits = { cpuMillis: 0, memoryBytes: 0 },
  ): ContainerRunSpec {
    const workloadId = randomUUID();
    return {
      allocationId: randomUUID(),
      workloadId,
      instanceId: `${workloadId}/0`,
      nodeId,
      command: '/bin/sh',
      args: ['-c', script],
      env: { GREETING: 'hello' },
      stopGraceSeconds: grace,
      limits,
      container: {
        namespace: 'team-a',
        image,
        pullPolicy: 'never',
        ports: [],
        volumes: [],
        ...over,
      },
    };
  }

  const ended = (allocationId: string) =>
    events.find((e) => e.allocationId === allocationId && e.kind !== 'started');

  async function endOf(allocationId: string, timeoutMs = 20_000): Promise<ExecutionEvent> {
    await eventually('the allocation ended', async () => ended(allocationId) !== undefined, timeoutMs);
    return ended(allocationId) as ExecutionEvent;
  }

  beforeEach(() => {
    events = [];
  });

  afterAll(async () => {
    for (const c of await engine.list([`${LABELS.node}=${nodeId}`])) await engine.remove(c.id);
  });

  it('runs a container to completion: started, its output, exit code, labels', async () => {
    const ex = executor();
    const s = spec('echo "$GREETING from $HCN_ALLOCATION_ID"; echo oops >&2; exit 0');
    expect(ex.start(s)).toBe(true);
    expect(ex.start(s)).toBe(false);
    const end = await endOf(s.allocationId);
    expect(events.filter((e) => e.allocationId === s.allocationId).map((e) => e.kind)).toEqual([
      'started',
      'completed',
    ]);
    expect(end).toMatchObject({ kind: 'completed', exitCode: 0 });
    const output = ex.readNewOutput(s.allocationId);
    expect(output).toEqual([
      { stream: 'stdout', offset: 0, text: `hello from ${s.allocationId}\n` },
      { stream: 'stderr', offset: 0, text: 'oops\n' },
    ]);
    const [kept] = await engine.list([`${LABELS.allocation}=${s.allocationId}`]);
    expect(kept.labels).toMatchObject({
      [LABELS.workload]: s.workloadId,
      [LABELS.namespace]: 'team-a',
      [LABELS.node]: nodeId,
    });
  });

  it('keeps only the last finished containers of a workload (keepFinished 1), removing older ones', async () => {
    const ex = executor();
    const first = spec('echo first');
    const second = { ...spec('echo second'), workloadId: first.workloadId };
    ex.start(first);
    await endOf(first.allocationId);
    ex.start(second);
    await endOf(second.allocationId);
    await eventually(
      'the older container removed',
      async () => (await engine.list([`${LABELS.workload}=${first.workloadId}`])).length === 1,
      10_000,
    );
    const [kept] = await engine.list([`${LABELS.workload}=${first.workloadId}`]);
    expect(kept.labels[LABELS.allocation]).toBe(second.allocationId);
  });

  it('reports a non-zero exit as failed with its code', async () => {
    const ex = executor();
    const s = spec('exit 3');
    ex.start(s);
    expect(await endOf(s.allocationId)).toMatchObject({
      kind: 'failed',
      exitCode: 3,
      reason: 'exited with code 3',
    });
  });

  it('stops a container that traps SIGTERM within the grace period, and kills one that ignores it after', async () => {
    const ex = executor();
    const polite = spec("trap 'echo bye; exit 0' TERM; echo ready; while :; do sleep 0.1; done", {}, 5);
    const stubborn = spec("trap '' TERM; echo ready; while :; do sleep 0.1; done", {}, 1);
    ex.start(polite);
    ex.start(stubborn);
    for (const s of [polite, stubborn])
      await eventually('ready', async () => ex.readNewOutput(s.allocationId).length > 0, 20_000);
    const t0 = Date.now();
    await Promise.all([ex.stop(polite.allocationId, 'spec'), ex.stop(stubborn.allocationId, 'spec')]);
    expect(ended(polite.allocationId)).toMatchObject({ kind: 'stopped', endedBy: 'SIGTERM', exitCode: 0 });
    expect(ended(stubborn.allocationId)).toMatchObject({
      kind: 'stopped',
      endedBy: 'SIGKILL',
      signal: 'SIGKILL',
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('reports a memory hog over its limit as ALLOCATION.OOM_KILLED', async () => {
    const ex = executor();
    const s = spec('exec tail /dev/zero', {}, 2, { cpuMillis: 0, memoryBytes: 20 * MiB });
    ex.start(s);
    const end = await endOf(s.allocationId);
    expect(end).toMatchObject({ kind: 'failed', exitCode: 137 });
    expect((end as { reason: string }).reason).toMatch(/^ALLOCATION\.OOM_KILLED: /);
  });

  // 100 millicores starts with 250 and is lowered right after the start: the loop runs under its own quota
  it.each([
    [500, 0.4, 0.6],
    [100, 0.07, 0.13],
  ])('holds a busy loop with %i millicores to its quota (%f–%f cores)', async (cpuMillis, low, high) => {
    const ex = executor();
    const s = spec('while :; do :; done', {}, 2, { cpuMillis, memoryBytes: 0 });
    ex.start(s);
    await eventually('started', async () => events.some((e) => e.kind === 'started'), 20_000);
    const [container] = await engine.list([`${LABELS.allocation}=${s.allocationId}`]);
    await new Promise((r) => setTimeout(r, 1000));
    // Three windows of 2 s: the quota caps every one; on a box busy with other suites the loop may get less than
    // its quota in some, so the best window shows what it gets when the CPU is there.
    const windows: number[] = [];
    for (let w = 0; w < 3; w++) {
      const before = await engine.stats(container.id);
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, 2000));
      const after = await engine.stats(container.id);
      windows.push((after.cpuSeconds - before.cpuSeconds) / ((Date.now() - t0) / 1000));
    }
    await ex.stop(s.allocationId, 'spec');
    // the quota's ceiling always holds; its floor only shows when the box has the CPU to give (not under a load
    // above its cores, as when other suites or sessions run beside this one)
    if (loadavg()[0] < cpus().length) expect(Math.max(...windows)).toBeGreaterThanOrEqual(low);
    expect(Math.max(...windows)).toBeLessThanOrEqual(high);
  });

  it('measures a container from the engine stats when the agent reads no cgroups (usage while running, at its end)', async () => {
    const ex = executor(undefined, 'none');
    const s = spec('i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 600', {}, 0);
    ex.start(s);
    await eventually('sampled', async () => (ex.usage(s.allocationId)?.cpuSeconds ?? 0) > 0.05, 20_000);
    const running = ex.usage(s.allocationId);
    expect(running?.memoryBytes).toBeGreaterThan(0);
    expect(running?.memoryPeakBytes).toBeGreaterThanOrEqual(running?.memoryBytes ?? Infinity);
    await ex.stop(s.allocationId, 'spec');
    const end = await endOf(s.allocationId);
    expect((end as { usage?: { cpuSeconds: number } }).usage?.cpuSeconds).toBeGreaterThanOrEqual(
      running?.cpuSeconds ?? Infinity,
    );
  });

  it('fails a missing image with pullPolicy never as IMAGE.NOT_FOUND, and a failed pull backs off', async () => {
    const ex = executor();
    const never = spec('true', { image: 'localhost/hcn-no-such-image:1', pullPolicy: 'never' });
    ex.start(never);
    expect(await endOf(never.allocationId)).toMatchObject({ kind: 'failed' });
    expect((ended(never.allocationId) as { reason: string }).reason).toMatch(/^IMAGE\.NOT_FOUND: /);
    const first = spec('true', { image: 'localhost:1/hcn-no-such-image:1', pullPolicy: 'ifNotPresent' });
    ex.start(first);
    const firstEnd = (await endOf(first.allocationId)) as { reason: string };
    expect(firstEnd.reason).toMatch(/^IMAGE\.(PULL_FAILED|NOT_FOUND): /);
    const t0 = Date.now();
    const second = spec('true', { image: 'localhost:1/hcn-no-such-image:1', pullPolicy: 'ifNotPresent' });
    ex.start(second);
    const secondEnd = (await endOf(second.allocationId)) as { reason: string };
    expect(secondEnd.reason).toBe(firstEnd.reason); // the same error, from the back-off, without pulling again
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('refuses a host path outside the allowed directories', async () => {
    const ex = executor();
    const s = spec('true', { volumes: [{ source: '/etc', target: '/host-etc', readOnly: true }] });
    ex.start(s);
    expect((await endOf(s.allocationId)) as { reason: string }).toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^VOLUME\.HOST_PATH_DENIED: host path \/etc/),
    });
  });

  it('publishes a port the engine picks and reports it', async () => {
    const ex = executor();
    const s = spec('echo served > /tmp/index.html; exec httpd -f -p 8080 -h /tmp', {
      ports: [{ containerPort: 8080, hostPort: 0, protocol: 'tcp' }],
    });
    ex.start(s);
    await eventually('started', async () => events.some((e) => e.kind === 'started'), 20_000);
    const started = events.find((e) => e.kind === 'started') as { ports?: { hostPort: number }[] };
    const hostPort = started.ports?.[0]?.hostPort ?? 0;
    expect(hostPort).toBeGreaterThan(0);
    let body = '';
    await eventually(
      'the published port answers',
      () =>
        new Promise<boolean>((resolve) =>
          get(`http://127.0.0.1:${hostPort}/index.html`, (res) => {
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve(body.includes('served')));
          }).on('error', () => resolve(false)),
        ),
      10_000,
    );
    await ex.stop(s.allocationId, 'spec');
  });

  it('re-adopts a running container after a restart of the agent and reports its end once', async () => {
    const first = executor();
    const s = spec('echo one; sleep 3; echo two; exit 0');
    first.start(s);
    await eventually('started', async () => events.some((e) => e.kind === 'started'), 20_000);
    // A new executor stands for the restarted agent (the first one is abandoned, as SIGKILL would leave it).
    const restartedEvents: ExecutionEvent[] = [];
    const second = executor(restartedEvents);
    expect(await second.adopt(new Set([s.allocationId]))).toEqual([
      { allocationId: s.allocationId, workloadId: s.workloadId },
    ]);
    expect(second.start(s)).toBe(false); // a repeated run command starts nothing
    await eventually('completed after adoption', async () => restartedEvents.length > 0, 20_000);
    expect(restartedEvents).toEqual([
      expect.objectContaining({ kind: 'completed', allocationId: s.allocationId }),
    ]);
    expect(second.readNewOutput(s.allocationId).map((c) => c.text)).toEqual(['one\ntwo\n']);
    const same = await engine.list([`${LABELS.allocation}=${s.allocationId}`]);
    expect(same).toHaveLength(1);
  });

  it('reports a container lost when its engine goes away, and removes it once the engine is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hcn-engine-'));
    let service = await startPodmanService(dir);
    const lostEvents: ExecutionEvent[] = [];
    const ex = new ContainerExecutor({
      engine: new DockerEngine(service.socketPath),
      nodeId: () => nodeId,
      baseDir: mkdtempSync(join(tmpdir(), 'hcn-containers-')),
      onEvent: (e) => lostEvents.push(e),
      policy: {
        allowedHostPaths: [],
        pidsLimit: 64,
        ulimits: [
          { name: 'nofile', soft: 1024, hard: 1024 },
          { name: 'nproc', soft: 1024, hard: 1024 },
        ],
      },
      cgroups: 'none',
      keepFinished: 1,
      engineRetryMs: 200,
    });
    const s = spec('sleep 120');
    ex.start(s);
    await eventually('started', async () => lostEvents.length > 0, 20_000);
    expect(lostEvents[0]).toMatchObject({ kind: 'started' });
    await service.stop();
    await eventually('lost', async () => lostEvents.some((e) => e.kind === 'lost'), 20_000);
    expect(lostEvents.find((e) => e.kind === 'lost')).toMatchObject({
      allocationId: s.allocationId,
      reason: expect.stringMatching(/^ENGINE\.UNAVAILABLE: /),
    });
    const running = await engine.list([`${LABELS.allocation}=${s.allocationId}`]);
    expect(running.map((c) => c.running)).toEqual([true]); // the container outlived its engine's API
    service = await startPodmanService(dir);
    try {
      await eventually(
        'the lost container removed once the engine answers',
        async () => (await engine.list([`${LABELS.allocation}=${s.allocationId}`])).length === 0,
        20_000,
      );
      expect(lostEvents.map((e) => e.kind)).toEqual(['started', 'lost']); // nothing more is reported
    } finally {
      await service.stop();
    }
  }, 60_000);
});
