import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ExecutionEvent,
  OutputChunk,
  ProcessExecutor,
  ProcessExecutorOptions,
  ProcessSpec,
} from './process.executor';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Gone: no such process, or a zombie nobody reaps yet (the sandbox's PID 1 may not reap orphans). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

const LOOP = 'while true; do sleep 0.1; done';

describe('ProcessExecutor (real processes)', () => {
  let baseDir: string;
  let events: ExecutionEvent[];
  let exec: ProcessExecutor;

  const make = (opts: Partial<ProcessExecutorOptions> = {}) =>
    (exec = new ProcessExecutor({ baseDir, onEvent: (e) => events.push(e), ...opts }));
  const sh = (id: string, script: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({
    allocationId: id,
    workloadId: 'wl-1',
    instanceId: 'inst-1',
    nodeId: 'node-1',
    command: '/bin/sh',
    args: ['-c', script],
    env: {},
    stopGraceSeconds: 5,
    ...extra,
  });
  const of = (id: string) => events.filter((e) => e.allocationId === id);
  const ended = async (id: string): Promise<any> => {
    await until(() => of(id).some((e) => e.kind !== 'started'));
    return of(id).find((e) => e.kind !== 'started');
  };
  const pidFile = async (id: string): Promise<number> => {
    const file = join(baseDir, id, 'gc.pid');
    await until(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'));
    return Number(readFileSync(file, 'utf8').trim());
  };

  beforeEach(() => {
    baseDir = mkdtempSync(join(tmpdir(), 'hcn-exec-'));
    events = [];
    make();
  });

  afterEach(async () => {
    await exec.stopAll('test over');
    rmSync(baseDir, { recursive: true, force: true });
  });

  it('runs a process to completion: events, logs, HCN_* env, minimal inherited env, working dir', async () => {
    process.env.HCN_SPEC_SECRET = 'leak';
    const script =
      'echo hello; echo oops >&2; echo "$HCN_WORKLOAD_ID $HCN_ALLOCATION_ID $HCN_NODE_ID $HCN_INSTANCE_ID"; ' +
      'echo "custom=$CUSTOM secret=$HCN_SPEC_SECRET"; pwd; exit 0';
    expect(exec.start(sh('a1', script, { env: { CUSTOM: 'yes' } }))).toBe(true);
    delete process.env.HCN_SPEC_SECRET;
    expect(await ended('a1')).toMatchObject({ kind: 'completed', exitCode: 0 });
    const [started] = of('a1');
    expect(started).toMatchObject({ kind: 'started', allocationId: 'a1' });
    expect((started as any).pid).toBeGreaterThan(0);
    const stdout = [
      'hello',
      'wl-1 a1 node-1 inst-1',
      'custom=yes secret=',
      realpathSync(join(baseDir, 'a1')),
    ];
    expect(exec.tail('a1', 10, 'stdout')).toEqual(stdout);
    expect(exec.tail('a1', 10, 'stderr')).toEqual(['oops']);
    expect(exec.tail('a1', 2, 'stdout')).toEqual(stdout.slice(2));
    expect(exec.tail('a1', 10).sort()).toEqual([...stdout, 'oops'].sort());
    expect(readFileSync(join(baseDir, 'a1', 'stdout.log'), 'utf8')).toBe(stdout.join('\n') + '\n');
    expect(exec.running()).toEqual([]);
    await exec.stop('a1', 'late'); // finished: resolves at once
    expect(of('a1')).toHaveLength(2);
  });

  it('creates a relative working dir inside the allocation dir', async () => {
    exec.start(sh('w1', 'pwd', { workingDir: 'work/sub' }));
    expect(await ended('w1')).toMatchObject({ kind: 'completed' });
    expect(exec.tail('w1', 1, 'stdout')).toEqual([realpathSync(join(baseDir, 'w1', 'work', 'sub'))]);
  });

  it('reports a non-zero exit, a signal, a missing binary, EACCES, a bad cwd and a bad allocation id as failed, without throwing', async () => {
    exec.start(sh('f1', 'echo bye; exit 3'));
    exec.start(sh('f2', 'kill -KILL $$'));
    expect(() => exec.start({ ...sh('f3', ''), command: '/nonexistent/hcn-binary' })).not.toThrow();
    expect(() => exec.start(sh('../f4', 'exit 0'))).not.toThrow();
    writeFileSync(join(baseDir, 'not-executable'), 'echo hi\n');
    exec.start({ ...sh('f5', ''), command: join(baseDir, 'not-executable') });
    exec.start(sh('f6', 'pwd', { workingDir: join(baseDir, 'not-executable') })); // cwd is a file
    expect(await ended('f1')).toMatchObject({
      kind: 'failed',
      exitCode: 3,
      signal: null,
      reason: 'exited with code 3',
    });
    expect(await ended('f2')).toMatchObject({ kind: 'failed', exitCode: null, signal: 'SIGKILL' });
    const missing = await ended('f3');
    expect(missing).toMatchObject({ kind: 'failed', exitCode: null, signal: null });
    expect(missing.reason).toMatch(/ENOENT/);
    expect(of('f3').map((e) => e.kind)).toEqual(['failed']);
    expect((await ended('../f4')).reason).toMatch(/invalid allocation id/);
    expect(exec.tail('f1', 5)).toEqual(['bye']);
    expect((await ended('f5')).reason).toMatch(/EACCES/);
    expect((await ended('f6')).reason).toMatch(/ENOTDIR/);
  });

  it('stop: SIGTERM ends a cooperative process and its group', async () => {
    exec.start(sh('s1', `sleep 30 & echo $! > gc.pid; trap "exit 0" TERM; ${LOOP}`));
    const grandchild = await pidFile('s1');
    expect(exec.running()).toEqual(['s1']);
    await exec.stop('s1', 'user asked');
    expect(await ended('s1')).toMatchObject({
      kind: 'stopped',
      endedBy: 'SIGTERM',
      exitCode: 0,
      reason: 'user asked',
    });
    await until(() => gone(grandchild), 2000);
    expect(exec.running()).toEqual([]);
  });

  it('stop: escalates to SIGKILL after the grace period and kills the whole group', async () => {
    exec.start(sh('s2', `trap "" TERM; sleep 30 & echo $! > gc.pid; ${LOOP}`, { stopGraceSeconds: 1 }));
    const grandchild = await pidFile('s2');
    const t0 = Date.now();
    await exec.stop('s2', 'drain');
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3000);
    expect(await ended('s2')).toMatchObject({ kind: 'stopped', endedBy: 'SIGKILL', signal: 'SIGKILL' });
    await until(() => gone(grandchild), 2000);
  });

  it('a process that exits leaves nothing of its group behind; stopAll stops everything', async () => {
    exec.start(sh('g1', 'sleep 30 & echo $! > gc.pid; exit 0'));
    const grandchild = await pidFile('g1');
    expect(await ended('g1')).toMatchObject({ kind: 'completed' });
    await until(() => gone(grandchild), 2000);
    exec.start(sh('m1', `trap "exit 0" TERM; ${LOOP}`));
    exec.start(sh('m2', LOOP));
    expect(exec.running().sort()).toEqual(['m1', 'm2']);
    await exec.stopAll('shutdown');
    expect([(await ended('m1')).kind, (await ended('m2')).kind]).toEqual(['stopped', 'stopped']);
    expect(exec.running()).toEqual([]);
  });

  it('start is idempotent per allocation id', async () => {
    expect(exec.start(sh('i1', LOOP))).toBe(true);
    expect(exec.start(sh('i1', 'exit 0'))).toBe(false);
    await exec.stop('i1', 'done');
    expect(exec.start(sh('i1', 'exit 0'))).toBe(false);
    expect(of('i1').map((e) => e.kind)).toEqual(['started', 'stopped']);
  });

  const lines = (n: number, errEvery = 0, pauseEvery = 0) =>
    `i=1; while [ $i -le ${n} ]; do echo "line $i"; ` +
    (errEvery ? `[ $((i % ${errEvery})) -eq 0 ] && echo "err $i" >&2; ` : '') +
    (pauseEvery ? `[ $((i % ${pauseEvery})) -eq 0 ] && sleep 0.05; ` : '') +
    'i=$((i+1)); done; exit 0';
  const expected = (n: number, prefix = 'line', every = 1) =>
    Array.from({ length: n }, (_, k) => k + 1)
      .filter((i) => i % every === 0)
      .map((i) => `${prefix} ${i}\n`)
      .join('');

  it('rotates logs by size, keeps the configured count, tails across files', async () => {
    make({ maxLogBytes: 1000, keepLogFiles: 2 });
    exec.start(sh('r1', lines(400)));
    expect(await ended('r1')).toMatchObject({ kind: 'completed' });
    const dir = join(baseDir, 'r1');
    const files = readdirSync(dir).filter((f) => f.startsWith('stdout.log'));
    expect(files.sort()).toEqual(['stdout.log', 'stdout.log.1', 'stdout.log.2']);
    files.forEach((f) => expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(1000));
    expect(exec.tail('r1', 3, 'stdout')).toEqual(['line 398', 'line 399', 'line 400']);
    const many = exec.tail('r1', 250, 'stdout'); // spans all three files
    expect(many).toEqual(Array.from({ length: 250 }, (_, k) => `line ${151 + k}`));
    const all = exec.tail('r1', 10_000, 'stdout'); // only what is retained, never a fragment first
    expect(all[all.length - 1]).toBe('line 400');
    all.forEach((l, k) => expect(l).toBe(`line ${401 - all.length + k}`));
    const kept = ['stdout.log.2', 'stdout.log.1', 'stdout.log']
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('');
    const [chunk] = exec.readNewOutput('r1', 1 << 20);
    const total = Buffer.byteLength(expected(400));
    expect(chunk).toEqual({ stream: 'stdout', offset: total - Buffer.byteLength(kept), text: kept });
  });

  it('readNewOutput hands out every byte exactly once, across rotations, while running and after', async () => {
    make({ maxLogBytes: 1000, keepLogFiles: 10 });
    exec.start(sh('n1', lines(400, 25, 100)));
    const got: OutputChunk[] = [];
    let reads = 0;
    while (!of('n1').some((e) => e.kind !== 'started')) {
      got.push(...exec.readNewOutput('n1', 300));
      reads++;
      await sleep(2);
    }
    for (let more = exec.readNewOutput('n1', 300); more.length; more = exec.readNewOutput('n1', 300))
      got.push(...more);
    expect(of('n1').map((e) => e.kind)).toEqual(['started', 'completed']);
    expect(reads).toBeGreaterThan(10); // some reads happened while it ran
    for (const [stream, text] of [
      ['stdout', expected(400)],
      ['stderr', expected(400, 'err', 25)],
    ]) {
      const mine = got.filter((c) => c.stream === stream);
      let offset = 0;
      for (const c of mine) {
        expect(c.offset).toBe(offset);
        expect(Buffer.byteLength(c.text)).toBeLessThanOrEqual(300);
        offset += Buffer.byteLength(c.text);
      }
      expect(mine.map((c) => c.text).join('')).toBe(text);
    }
    expect(exec.readNewOutput('n1')).toEqual([]);
    exec.start(sh('u1', "printf 'h\\303\\251\\303\\251\\342\\202\\254!'")); // hé é € ! split by 3-byte reads
    await ended('u1');
    const texts: string[] = [];
    for (let more = exec.readNewOutput('u1', 3); more.length; more = exec.readNewOutput('u1', 3))
      texts.push(...more.map((c) => c.text));
    expect(texts.join('')).toBe('héé€!');
    expect(exec.readNewOutput('unknown')).toEqual([]);
  });
});
