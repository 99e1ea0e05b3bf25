import { readFileSync } from 'node:fs';

/**
 * What tells one process apart from a later one given the same pid: its start time (clock ticks after boot,
 * field 22 of /proc/<pid>/stat) and the boot it started in.
 */
export interface ProcessStamp {
  readonly startTime: number;
  readonly bootId: string;
}

/** What /proc says of a process: its state letter, process group and start time; undefined where it has none. */
export interface ProcStat {
  readonly state: string;
  readonly pgrp: number;
  readonly startTime: number;
}

/** Reads /proc/<pid>/stat (a zombie has one too); undefined when there is no such process or no /proc. */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold anything: fields 3.. follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const startTime = Number(fields[19]);
  if (!Number.isSafeInteger(startTime)) return undefined;
  return { state: fields[0], pgrp: Number(fields[2]), startTime };
}

/** This boot's id ('' where the kernel does not say). */
export function currentBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/** The stamp of a process now (read it while the process cannot have been reaped yet); undefined without /proc. */
export function stampOf(pid: number): ProcessStamp | undefined {
  const stat = procStat(pid);
  return stat ? { startTime: stat.startTime, bootId: currentBootId() } : undefined;
}

/**
 * Whether the process group a process stamped `stamp` led may still exist and be that process's group, so that
 * signalling group `pid` reaches it and nothing else:
 * - another boot: nothing of it survived;
 * - a process with that pid and another start time: the pid was reused, which the kernel does only once no group
 *   holds the number, so the old group is gone (and the new one is someone else's);
 * - the same process (alive, or a zombie): yes;
 * - no such process: the leader is gone, but its group may live on (a number is not reused while a group holds it).
 * Without a stamp (a state file of an older agent) it cannot tell, and says yes, as before.
 */
export function mayBeOwnGroup(pid: number, stamp: ProcessStamp | undefined): boolean {
  if (!stamp) return true;
  if (stamp.bootId && stamp.bootId !== currentBootId()) return false;
  const now = procStat(pid);
  return now === undefined || now.startTime === stamp.startTime;
}
