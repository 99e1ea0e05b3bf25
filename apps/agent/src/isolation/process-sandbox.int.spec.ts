import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, inCi } from '@hcn/testing';
import { ProcessExecutor } from '../executors/process.executor';
import type { ExecutionEvent, ProcessSpec } from '../executors/execution.types';
import { detectCgroupMode } from './cgroups';
import { ProcessSandbox } from './process-sandbox';
import { resolveWorkloadUser } from './workload-user';

const MiB = 1024 * 1024;
const root = process.getuid?.() === 0;
const cgroups = detectCgroupMode();
const canIsolate = root && cgroups !== 'none';
if (!canIsolate && inCi) throw new Error('the isolation spec needs root and writable cgroups under CI=true');
const describeIsolated = canIsolate ? describe : describe.skip;

describeIsolated('process workloads in their sandbox (real user switch, real cgroups)', () => {
  const user = resolveWorkloadUser('auto');
  const sandbox = new ProcessSandbox(user, cgroups, '/hcn-spec-processes', 256);
  let dataDir: string;
  let events: ExecutionEvent[];
  let executor: ProcessExecutor;

  beforeEach(() => {
    events = [];
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-sandbox-'));
    chmodSync(dataDir, 0o700);
    executor = new ProcessExecutor({
      baseDir: join(dataDir, 'allocations'),
      onEvent: (e) => events.push(e),
      sandbox,
    });
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const spec = (script: string, limits = { cpuMillis: 0, memoryBytes: 0 }): ProcessSpec => ({
    allocationId: randomUUID(),
    workloadId: randomUUID(),
    instanceId: 'w/0',
    nodeId: randomUUID(),
    command: 'sh',
    args: ['-c', script],
    env: {},
    stopGraceSeconds: 1,
    limits,
  });
  const ended = (id: string) => events.find((e) => e.allocationId === id && e.kind !== 'started');
  async function endOf(id: string): Promise<ExecutionEvent & { reason?: string }> {
    await eventually('the process ended', async () => ended(id) !== undefined, 20_000);
    return ended(id) as ExecutionEvent & { reason?: string };
  }

  it('runs as the unprivileged workload user in its own 0700 directory', async () => {
    expect(user?.uid).toBeGreaterThan(0);
    const s = spec('id -u; echo "$HOME"; pwd; touch mine && echo wrote');
    executor.start(s);
    expect(await endOf(s.allocationId)).toMatchObject({ kind: 'completed' });
    const out = executor.tail(s.allocationId, 10, 'stdout');
    const dir = join(dataDir, 'allocations', s.allocationId);
    expect(out).toEqual([String(user?.uid), dir, dir, 'wrote']);
    const st = statSync(dir);
    expect([st.uid, st.mode & 0o777]).toEqual([user?.uid, 0o700]);
  });

  it("cannot read the agent's files: EACCES on a 0600 file in the agent's 0700 data directory", async () => {
    mkdirSync(join(dataDir, 'outbox'), { mode: 0o700 });
    writeFileSync(join(dataDir, 'outbox', 'reports.log'), 'credential\n', { mode: 0o600 });
    writeFileSync(join(dataDir, 'node-id'), 'id\n', { mode: 0o600 });
    const s = spec(`cat ${join(dataDir, 'outbox', 'reports.log')}; cat ../../node-id; env`);
    executor.start(s);
    await endOf(s.allocationId);
    const err = executor.tail(s.allocationId, 10, 'stderr').join('\n');
    expect(err.match(/Permission denied/g)).toHaveLength(2);
    expect(executor.tail(s.allocationId, 100, 'stdout').join('\n')).not.toMatch(
      /credential|HCN_CGROUP_PROCS/,
    );
  });

  it('kills a process over its memory limit and reports ALLOCATION.OOM_KILLED', async () => {
    const s = spec('exec tail /dev/zero', { cpuMillis: 0, memoryBytes: 32 * MiB });
    executor.start(s);
    const end = await endOf(s.allocationId);
    expect(end).toMatchObject({ kind: 'failed', signal: 'SIGKILL' });
    expect(end.reason).toMatch(/^ALLOCATION\.OOM_KILLED: out of memory \(memory limit 33554432 bytes\)$/);
  });

  it('holds a busy loop with 500 millicores to about half a core (cgroup accounting)', async () => {
    const s = spec('while :; do :; done', { cpuMillis: 500, memoryBytes: 0 });
    executor.start(s);
    await eventually('started', async () => events.some((e) => e.kind === 'started'), 10_000);
    await new Promise((r) => setTimeout(r, 1000));
    // three windows: the quota caps each; the best one shows what the loop gets when the CPU is there
    const windows: number[] = [];
    for (let w = 0; w < 3; w++) {
      const before = sandbox.usage(s.allocationId)?.cpuSeconds ?? 0;
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, 2000));
      windows.push(((sandbox.usage(s.allocationId)?.cpuSeconds ?? 0) - before) / ((Date.now() - t0) / 1000));
    }
    await executor.stop(s.allocationId, 'spec');
    // the quota's ceiling always holds; its floor only shows when the box has the CPU to give (not under a load
    // above its cores, as when other suites or sessions run beside this one)
    if (loadavg()[0] < cpus().length) expect(Math.max(...windows)).toBeGreaterThanOrEqual(0.4);
    expect(Math.max(...windows)).toBeLessThanOrEqual(0.6);
  });

  it('without cgroups caps memory with an address-space rlimit: the limit is in force, a hog fails', async () => {
    const plain = new ProcessExecutor({
      baseDir: join(dataDir, 'plain'),
      onEvent: (e) => events.push(e),
      sandbox: new ProcessSandbox(user, 'none', '/hcn-spec-unused', 256),
    });
    const s = spec('ulimit -v; exec tail /dev/zero', { cpuMillis: 0, memoryBytes: 64 * MiB });
    plain.start(s);
    const end = await endOf(s.allocationId);
    expect(end).toMatchObject({ kind: 'failed', signal: null });
    expect(plain.tail(s.allocationId, 1, 'stdout')).toEqual([String(64 * 1024)]);
    expect(plain.tail(s.allocationId, 5, 'stderr').join('\n')).toMatch(/memory/i);
  });

  it('still reports a missing program as could not start', async () => {
    const s = { ...spec(''), command: 'no-such-program-hcn' };
    executor.start(s);
    expect(await endOf(s.allocationId)).toMatchObject({
      kind: 'failed',
      reason: 'could not start: spawn no-such-program-hcn ENOENT',
    });
  });
});
