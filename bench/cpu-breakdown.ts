import { readFileSync, readdirSync } from 'node:fs';
import { ownProcessIds } from './process-cpu';

/**
 * CPU seconds used so far per process group: hub, projector, postgres and kafka (the server and broker this bench
 * started, not those of other work on a shared box), this load generator, and other (everything else on the box).
 */
export function cpuByGroup(pids: { hub?: number; projector?: number }): Record<string, number> {
  const ticks = 100; // USER_HZ on Linux
  const own = ownProcessIds();
  const groups: Record<string, number> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(fields[11]) + Number(fields[12])) / ticks;
    const pid = Number(entry);
    const group =
      pid === pids.hub
        ? 'hub'
        : pid === pids.projector
          ? 'projector'
          : pid === process.pid
            ? 'loadGenerator'
            : comm === 'postgres' && own.has(pid)
              ? 'postgres'
              : comm === 'java' && own.has(pid)
                ? 'kafka'
                : 'other';
    groups[group] = (groups[group] ?? 0) + seconds;
  }
  return groups;
}

/** CPU milliseconds per unit of work between two samples, per group. */
export function cpuPerUnit(before: Record<string, number>, after: Record<string, number>, units: number) {
  const out: Record<string, number> = {};
  for (const group of Object.keys(after)) {
    const used = after[group] - (before[group] ?? 0);
    if (used > 0) out[group] = +((used * 1000) / Math.max(1, units)).toFixed(2);
  }
  return out;
}

/** CPU milliseconds per second per group over `seconds` with no load offered (heartbeats and timers only). */
export async function backgroundCpu(
  pids: { hub?: number; projector?: number },
  seconds: number,
): Promise<Record<string, number>> {
  const before = cpuByGroup(pids);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return cpuPerUnit(before, cpuByGroup(pids), seconds);
}

/**
 * CPU milliseconds per unit of work beyond the background: what each group used between two samples `seconds`
 * apart, less what it uses per second with no load offered, over `units`.
 */
export function marginalCpuPerUnit(
  before: Record<string, number>,
  after: Record<string, number>,
  units: number,
  background: Record<string, number>,
  seconds: number,
) {
  const out: Record<string, number> = {};
  for (const group of Object.keys(after)) {
    const used = (after[group] - (before[group] ?? 0)) * 1000 - (background[group] ?? 0) * seconds;
    out[group] = +(Math.max(0, used) / Math.max(1, units)).toFixed(2);
  }
  out.total = +Object.values(out)
    .reduce((a, b) => a + b, 0)
    .toFixed(2);
  return out;
}
