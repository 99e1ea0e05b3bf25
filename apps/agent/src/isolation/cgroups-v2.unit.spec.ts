import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * cgroup v2 cannot run on this machine kind (it mounts v1), so this spec points the module at a FAKE hierarchy (a
 * temporary directory, named as such) and checks the files the kernel's v2 interface defines: what the agent writes
 * to limit an allocation and what it reads back as usage.
 */
const root = mkdtempSync(join(tmpdir(), 'hcn-fake-cgroup2-'));
process.env.HCN_CGROUP_ROOT = root;
const cgroups = require('./cgroups') as typeof import('./cgroups');

const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');

describe('cgroup v2 (fake hierarchy)', () => {
  it('creates the allocation cgroup under its parent, enabling the controllers at each level, with its limits', () => {
    const procs = cgroups.createCgroup('v2', '/hcn-agent/a1', {
      cpuMillis: 250,
      memoryBytes: 64 * 2 ** 20,
      pidsMax: 128,
    });
    expect(procs).toEqual([join(root, 'hcn-agent', 'a1', 'cgroup.procs')]);
    expect(read('cgroup.subtree_control')).toBe('+cpu +memory +pids');
    expect(read('hcn-agent', 'cgroup.subtree_control')).toBe('+cpu +memory +pids');
    expect(read('hcn-agent', 'a1', 'cpu.max')).toBe('25000 100000');
    expect(read('hcn-agent', 'a1', 'memory.max')).toBe(String(64 * 2 ** 20));
    expect(read('hcn-agent', 'a1', 'memory.swap.max')).toBe('0');
    expect(read('hcn-agent', 'a1', 'pids.max')).toBe('128');
  });

  it('never writes a quota under 1 ms per period (the kernel refuses it)', () => {
    cgroups.createCgroup('v2', '/hcn-agent/a2', { cpuMillis: 1, memoryBytes: 0, pidsMax: 0 });
    expect(read('hcn-agent', 'a2', 'cpu.max')).toBe('1000 100000');
  });

  it('reads usage from cpu.stat, memory.current, memory.peak and memory.events', () => {
    const dir = join(root, 'hcn-agent', 'a3');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cpu.stat'), 'usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n');
    writeFileSync(join(dir, 'memory.current'), '1048576\n');
    writeFileSync(join(dir, 'memory.peak'), '4194304\n');
    writeFileSync(join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n');
    expect(cgroups.cgroupUsage('v2', '/hcn-agent/a3')).toEqual({
      cpuSeconds: 2.5,
      memoryBytes: 1048576,
      memoryPeakBytes: 4194304,
      oomKills: 1,
    });
  });

  it('removes the allocation cgroup', () => {
    cgroups.createCgroup('v2', '/hcn-agent/a4', { cpuMillis: 0, memoryBytes: 0, pidsMax: 0 });
    expect(existsSync(join(root, 'hcn-agent', 'a4'))).toBe(true);
    cgroups.removeCgroup('v2', '/hcn-agent/a4');
    expect(existsSync(join(root, 'hcn-agent', 'a4'))).toBe(false);
    expect(existsSync(join(root, 'hcn-agent'))).toBe(true);
  });
});
