import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReportBody, WorkloadRunner } from './workload-runner';
import { ProcessStamp, currentBootId, procStat, stampOf } from './executors/process-stamp';
import { writeFileAtomically } from './atomic-file';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Alive: a process with that pid and start time that is not a zombie (PID 1 here may not reap orphans). */
function alive(pid: number, startTime: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === startTime;
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/** Every process of group `pgrp` now, with its start time. */
function groupMembers(pgrp: number): Array<{ pid: number; startTime: number }> {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      const stat = procStat(Number(name));
      return stat && stat.pgrp === pgrp && stat.state !== 'Z'
        ? [{ pid: Number(name), startTime: stat.startTime }]
        : [];
    });
}

describe('WorkloadRunner: processes a previous life of the agent left (real processes)', () => {
  let dataDir: string;
  let reports: ReportBody[];
  const spawned: ChildProcess[] = [];
  const statePath = () => join(dataDir, 'allocations.json');
  const runner = () =>
    new WorkloadRunner(
      dataDir,
      () => 'node-1',
      (r) => reports.push(r),
    );
  /** A process group as a dead agent's executor would have left it (its own session, detached). */
  const group = (script: string): ChildProcess => {
    const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    spawned.push(child);
    return child;
  };
  const leave = (allocations: Record<string, { pid: number; stamp?: ProcessStamp }>) =>
    writeFileSync(
      statePath(),
      JSON.stringify(
        Object.fromEntries(Object.entries(allocations).map(([id, o]) => [id, { workloadId: 'wl-1', ...o }])),
      ),
    );
  const failedReports = (allocationId: string) =>
    reports.filter(
      (r) => r.kind === 'allocation' && r.allocationId === allocationId && r.status === 'failed',
    );

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-runner-'));
    reports = [];
  });

  afterEach(() => {
    for (const child of spawned.splice(0))
      if (child.pid) for (const m of groupMembers(child.pid)) process.kill(m.pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records the pid of the group leader (children share its group) and which process it was', async () => {
    const r = runner();
    const allocationId = randomUUID();
    r.run({
      kind: 'run',
      commandId: randomUUID(),
      nodeId: 'node-1',
      placement: {
        workloadId: randomUUID(),
        allocationId,
        instance: 0,
        attempt: 0,
        command: '/bin/sh',
        args: ['-c', 'sleep 30 & sleep 30'],
        env: {},
        stopGraceSeconds: 0,
      },
    });
    const owned = JSON.parse(readFileSync(statePath(), 'utf8'))[allocationId];
    await until(() => groupMembers(owned.pid).length >= 2);
    expect(procStat(owned.pid)?.pgrp).toBe(owned.pid);
    expect(owned.stamp).toEqual(stampOf(owned.pid));
    expect(owned.stamp.bootId).toBe(currentBootId());
    await r.stopAll('spec done');
  });

  it('kills the whole group of a process it left, reports it failed once and forgets it', async () => {
    const leader = group('sleep 30 & sleep 30 & wait');
    await until(() => groupMembers(leader.pid!).length >= 3);
    const members = groupMembers(leader.pid!);
    const allocationId = randomUUID();
    leave({ [allocationId]: { pid: leader.pid!, stamp: stampOf(leader.pid!) } });
    await runner().recover();
    await until(() => members.every((m) => !alive(m.pid, m.startTime)));
    expect(failedReports(allocationId)).toEqual([
      expect.objectContaining({ reason: 'the agent restarted while the allocation ran' }),
    ]);
    expect(JSON.parse(readFileSync(statePath(), 'utf8'))).toEqual({});
  });

  it('kills what is left of a group whose leader already ended (the number stays the group id)', async () => {
    const leader = group('sleep 30 & echo $!; exec sleep 0.3');
    const stamp = stampOf(leader.pid!);
    const left = Number(await new Promise<string>((r) => leader.stdout!.once('data', (d) => r(String(d)))));
    await new Promise((r) => leader.once('exit', r));
    await until(() => procStat(leader.pid!) === undefined); // reaped: no process has the number
    const survivor = procStat(left)!;
    expect(survivor.pgrp).toBe(leader.pid);
    leave({ [randomUUID()]: { pid: leader.pid!, stamp } });
    await runner().recover();
    await until(() => !alive(left, survivor.startTime));
  });

  it('leaves alone a group whose number another process took (other start time) or that is from another boot', async () => {
    const innocent = group('sleep 30');
    const { startTime } = procStat(innocent.pid!)!;
    const reused = randomUUID();
    const rebooted = randomUUID();
    leave({
      [reused]: { pid: innocent.pid!, stamp: { startTime: startTime - 1, bootId: currentBootId() } },
      [rebooted]: { pid: innocent.pid!, stamp: { startTime, bootId: 'another-boot' } },
    });
    await runner().recover();
    await sleep(300);
    expect(alive(innocent.pid!, startTime)).toBe(true);
    expect(failedReports(reused)).toHaveLength(1);
    expect(failedReports(rebooted)).toHaveLength(1);
    expect(JSON.parse(readFileSync(statePath(), 'utf8'))).toEqual({});
  });

  it('replaces a state file whole, leaving no temporary file behind', () => {
    const path = join(dataDir, 'state.json');
    writeFileAtomically(path, 'x'.repeat(100_000));
    writeFileAtomically(path, '{}');
    expect(readFileSync(path, 'utf8')).toBe('{}');
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });
});
