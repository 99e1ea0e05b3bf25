import {
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { MeasuredUsage } from '@hcn/contracts';

/** Where the cgroup hierarchy is mounted (`HCN_CGROUP_ROOT` where it is elsewhere, e.g. inside a container). */
const ROOT = process.env.HCN_CGROUP_ROOT ?? '/sys/fs/cgroup';

/** What a cgroup measured: CPU time, current and peak memory, OOM kills (when the kernel counts them there). */
export interface CgroupUsage {
  readonly cpuSeconds: number;
  readonly memoryBytes: number;
  readonly memoryPeakBytes: number;
  readonly oomKills: number;
}

/** The cgroup hierarchy the agent can create cgroups in: v1 with cpuacct and memory, v2, or none. */
export type CgroupMode = 'v1' | 'v2' | 'none';

/** Which hierarchy this machine mounts (writable as root), as the agent says at start. */
export function detectCgroupMode(): CgroupMode {
  if (process.getuid?.() !== 0) return 'none';
  if (existsSync(join(ROOT, 'memory', 'memory.limit_in_bytes')) && existsSync(join(ROOT, 'cpuacct')))
    return 'v1';
  if (existsSync(join(ROOT, 'cgroup.controllers'))) return 'v2';
  return 'none';
}

function readNumber(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}

function readKeyed(path: string, key: string): number {
  try {
    const line = readFileSync(path, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${key} `));
    return line ? Number(line.split(' ')[1]) || 0 : 0;
  } catch {
    return 0;
  }
}

/** Usage of a cgroup (relative path like `/hcn-agent/<id>`), children included; zeros where unreadable. */
export function cgroupUsage(mode: CgroupMode, path: string): CgroupUsage {
  if (mode === 'v1') {
    return {
      cpuSeconds: readNumber(join(ROOT, 'cpuacct', path, 'cpuacct.usage')) / 1e9,
      memoryBytes: readNumber(join(ROOT, 'memory', path, 'memory.usage_in_bytes')),
      memoryPeakBytes: readNumber(join(ROOT, 'memory', path, 'memory.max_usage_in_bytes')),
      oomKills: readKeyed(join(ROOT, 'memory', path, 'memory.oom_control'), 'oom_kill'),
    };
  }
  if (mode === 'v2') {
    return {
      cpuSeconds: readKeyed(join(ROOT, path, 'cpu.stat'), 'usage_usec') / 1e6,
      memoryBytes: readNumber(join(ROOT, path, 'memory.current')),
      memoryPeakBytes: readNumber(join(ROOT, path, 'memory.peak')),
      oomKills: readKeyed(join(ROOT, path, 'memory.events'), 'oom_kill'),
    };
  }
  return { cpuSeconds: 0, memoryBytes: 0, memoryPeakBytes: 0, oomKills: 0 };
}

const V1_CONTROLLERS = [
  'memory',
  'cpu',
  'cpuacct',
  'pids',
  'cpuset',
  'blkio',
  'devices',
  'freezer',
  'systemd',
];

/** The measured usage a report carries (the OOM count stays with the agent). */
export function measured(usage: CgroupUsage): MeasuredUsage {
  return {
    cpuSeconds: usage.cpuSeconds,
    memoryBytes: usage.memoryBytes,
    memoryPeakBytes: usage.memoryPeakBytes,
  };
}

/** Removes a cgroup and its empty children in every controller (best effort: a busy one stays). */
export function removeCgroup(mode: CgroupMode, path: string): void {
  if (mode === 'none') return;
  const dirs = mode === 'v1' ? V1_CONTROLLERS : [''];
  for (const controller of dirs) removeTree(join(ROOT, controller, path));
}

function removeTree(dir: string): void {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) removeTree(join(dir, entry.name));
    rmdirSync(dir);
  } catch {
    // missing, or still busy
  }
}

/**
 * SIGKILLs every process in a cgroup (v2: `cgroup.kill` where the kernel has it; else each pid in `cgroup.procs`,
 * v1: the memory controller's) and says how many it found; 0 where the cgroup does not exist.
 */
export function killCgroup(mode: CgroupMode, path: string): number {
  if (mode === 'none') return 0;
  const dir = mode === 'v1' ? join(ROOT, 'memory', path) : join(ROOT, path);
  const pids = cgroupPids(dir);
  if (mode === 'v2' && existsSync(join(dir, 'cgroup.kill'))) write(join(dir, 'cgroup.kill'), '1', true);
  else
    for (const pid of pids)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
  return pids.length;
}

function cgroupPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Limits of a cgroup: CPU in millicores, memory in bytes (swap not beyond it), processes (0: no limit). */
export interface CgroupLimits {
  readonly cpuMillis: number;
  readonly memoryBytes: number;
  readonly pidsMax: number;
}

const PERIOD_US = 100_000;

function write(path: string, value: string, optional = false): void {
  try {
    writeFileSync(path, value);
  } catch (error) {
    if (!optional) throw error;
  }
}

/**
 * Creates the cgroup `path` (e.g. `/hcn-agent/<id>`) with the limits in every controller it needs and returns the
 * `cgroup.procs` files a process must join; `owner` may write them (so a workload's wrapper, already running as its
 * user, joins before it execs), nothing else.
 */
export function createCgroup(mode: CgroupMode, path: string, limits: CgroupLimits, owner?: number): string[] {
  if (mode === 'none') return [];
  const dirs = mode === 'v1' ? v1Dirs(path, limits) : [v2Dir(path, limits)];
  const procs = dirs.map((dir) => join(dir, 'cgroup.procs'));
  if (owner !== undefined) for (const file of procs) chownSync(file, owner, -1);
  return procs;
}

function v1Dirs(path: string, limits: CgroupLimits): string[] {
  const dir = (controller: string): string => {
    const full = join(ROOT, controller, path);
    mkdirSync(full, { recursive: true });
    return full;
  };
  const memory = dir('memory');
  if (limits.memoryBytes > 0) {
    write(join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    write(join(memory, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes), true); // no swap accounting: none
  }
  const cpu = dir('cpu');
  if (limits.cpuMillis > 0) {
    write(join(cpu, 'cpu.cfs_period_us'), String(PERIOD_US));
    write(join(cpu, 'cpu.cfs_quota_us'), String(Math.max(1000, limits.cpuMillis * (PERIOD_US / 1000))));
  }
  const pids = dir('pids');
  if (limits.pidsMax > 0) write(join(pids, 'pids.max'), String(limits.pidsMax));
  const dirs = [memory, cpu, pids];
  if (existsSync(join(ROOT, 'cpuacct')) && !existsSync(join(ROOT, 'cpu', 'cpuacct.usage')))
    dirs.push(dir('cpuacct'));
  return dirs;
}

function v2Dir(path: string, limits: CgroupLimits): string {
  const parts = path.split('/').filter(Boolean);
  let current = ROOT;
  for (const part of parts) {
    write(join(current, 'cgroup.subtree_control'), '+cpu +memory +pids', true);
    current = join(current, part);
    mkdirSync(current, { recursive: true });
  }
  if (limits.memoryBytes > 0) {
    write(join(current, 'memory.max'), String(limits.memoryBytes));
    write(join(current, 'memory.swap.max'), '0', true);
  }
  if (limits.cpuMillis > 0)
    write(join(current, 'cpu.max'), `${Math.max(1000, limits.cpuMillis * (PERIOD_US / 1000))} ${PERIOD_US}`);
  if (limits.pidsMax > 0) write(join(current, 'pids.max'), String(limits.pidsMax));
  return current;
}
