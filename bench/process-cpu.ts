import { readFileSync, readdirSync } from 'node:fs';

/** One process as /proc/<pid>/stat shows it. */
interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
  /** utime + stime, seconds. */
  readonly cpuSeconds: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function readStat(pid: string): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited meanwhile
  }
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  return { pid: Number(pid), ppid: Number(fields[1]), comm, cpuSeconds };
}

/** Every process that descends from `root` (root included). */
function descendants(root: number): ProcStat[] {
  const all = readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(readStat)
    .filter((s): s is ProcStat => s !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const out: ProcStat[] = [];
  const queue = all.filter((s) => s.pid === root);
  while (queue.length > 0) {
    const next = queue.shift() as ProcStat;
    out.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return out;
}

/** The ids of this process and every process it started (a bench's own servers), not other work on the box. */
export function ownProcessIds(): Set<number> {
  return new Set(descendants(process.pid).map((s) => s.pid));
}

/** CPU seconds used so far by each process of this process's tree: group name and seconds, by process id. */
export type TreeCpu = Map<number, { group: string; seconds: number }>;

/**
 * CPU seconds used so far by this process's own tree, per process, grouped: hub and projector (their process ids),
 * postgres (the server this bench started and its backends), kafka (the broker's JVM), simulator (this
 * process: the simulated fleet) and other. Processes of other people's work on the same box are not counted.
 */
export function treeCpu(pids: { hub?: number; projector?: number }): TreeCpu {
  const out: TreeCpu = new Map();
  for (const s of descendants(process.pid)) {
    const group =
      s.pid === pids.hub
        ? 'hub'
        : s.pid === pids.projector
          ? 'projector'
          : s.pid === process.pid
            ? 'simulator'
            : s.comm === 'postgres'
              ? 'postgres'
              : s.comm === 'java'
                ? 'kafka'
                : 'other';
    out.set(s.pid, { group, seconds: s.cpuSeconds });
  }
  return out;
}

/**
 * CPU seconds per second per group between two samples `seconds` apart (a process started meanwhile counts from
 * zero; one that ended meanwhile is left out), with `system`: every group but the simulator.
 */
export function cpuPerSecond(before: TreeCpu, after: TreeCpu, seconds: number): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [pid, { group, seconds: total }] of after)
    used[group] = (used[group] ?? 0) + total - (before.get(pid)?.seconds ?? 0);
  const out: Record<string, number> = {};
  for (const [group, total] of Object.entries(used)) out[group] = +(total / seconds).toFixed(3);
  out.system = +Object.entries(out)
    .filter(([group]) => group !== 'simulator')
    .reduce((sum, [, v]) => sum + v, 0)
    .toFixed(3);
  return out;
}
