import { existsSync, readFileSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = '/sys/fs/cgroup';

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
