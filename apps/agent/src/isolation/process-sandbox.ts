import { accessSync, chmodSync, chownSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { AllocationLimits } from '@hcn/contracts';
import { CgroupMode, CgroupUsage, cgroupUsage, createCgroup, killCgroup, removeCgroup } from './cgroups';
import type { WorkloadUser } from './workload-user';

/** How a process is started inside its sandbox: the program and arguments to spawn, the user, extra variables. */
export interface SandboxedLaunch {
  readonly command: string;
  readonly args: string[];
  readonly uid?: number;
  readonly gid?: number;
  readonly env: Record<string, string>;
}

/** Joins the cgroups named in HCN_CGROUP_PROCS (as the workload's user), then execs the workload. */
const JOIN_CGROUPS =
  'for f in $HCN_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done; unset HCN_CGROUP_PROCS; exec "$@"';
/** Caps address space with an rlimit (no cgroups), then execs the workload. */
const RLIMIT_MEMORY = 'ulimit -v "$HCN_RLIMIT_KB" || exit 125; unset HCN_RLIMIT_KB; exec "$@"';

/**
 * Runs each process allocation as an unprivileged user in its own directory (0700, owned by it), with its
 * reservation enforced by a cgroup per allocation (v1 or v2) where the agent can manage cgroups, else with an
 * address-space rlimit (memory only), and reads its usage back.
 */
export class ProcessSandbox {
  constructor(
    private readonly user: WorkloadUser | undefined,
    private readonly cgroups: CgroupMode,
    private readonly parent: string,
    private readonly defaultPidsLimit: number,
  ) {}

  /** One line for the agent's start-up log. */
  describe(): string {
    const who = this.user
      ? `as ${this.user.name} (uid ${this.user.uid})`
      : 'as the agent user (not root: no switch)';
    const limits =
      this.cgroups === 'none'
        ? 'memory limited by rlimit (no cgroups: CPU not limited)'
        : `cgroup ${this.cgroups} limits`;
    return `process workloads run ${who} with ${limits}`;
  }

  /** Makes the allocation's directory its own and wraps the launch so it starts inside its limits. */
  prepare(
    allocationId: string,
    [dir, cwd]: readonly [string, string],
    command: string,
    args: string[],
    env: Record<string, string>,
    limits?: AllocationLimits,
  ): SandboxedLaunch {
    for (const own of new Set([dir, cwd])) {
      chmodSync(own, 0o700);
      if (this.user) chownSync(own, this.user.uid, this.user.gid);
    }
    const program = resolveProgram(command, env.PATH ?? process.env.PATH ?? '');
    const ids = this.user ? { uid: this.user.uid, gid: this.user.gid } : {};
    const base = { ...env, HOME: dir };
    if (this.cgroups !== 'none') {
      const procs = createCgroup(
        this.cgroups,
        this.path(allocationId),
        {
          cpuMillis: limits?.cpuMillis ?? 0,
          memoryBytes: limits?.memoryBytes ?? 0,
          pidsMax: limits?.pidsLimit ?? this.defaultPidsLimit,
        },
        this.user?.uid,
      );
      return {
        command: '/bin/sh',
        args: ['-c', JOIN_CGROUPS, 'hcn-sandbox', program, ...args],
        ...ids,
        env: { ...base, HCN_CGROUP_PROCS: procs.join(' ') },
      };
    }
    if (limits?.memoryBytes) {
      const kb = String(Math.ceil(limits.memoryBytes / 1024));
      return {
        command: '/bin/sh',
        args: ['-c', RLIMIT_MEMORY, 'hcn-sandbox', program, ...args],
        ...ids,
        env: { ...base, HCN_RLIMIT_KB: kb },
      };
    }
    return { command: program, args, ...ids, env: base };
  }

  /** What the allocation's cgroup measured so far (undefined without cgroups). */
  usage(allocationId: string): CgroupUsage | undefined {
    return this.cgroups === 'none' ? undefined : cgroupUsage(this.cgroups, this.path(allocationId));
  }

  /** Reads the allocation's final usage and removes its cgroup. */
  release(allocationId: string): CgroupUsage | undefined {
    const usage = this.usage(allocationId);
    removeCgroup(this.cgroups, this.path(allocationId));
    return usage;
  }

  /**
   * Kills whatever is left in the cgroup of an allocation a previous life of the agent ran (descendants that left
   * its process group included) and removes the cgroup once empty (waiting at most `waitMs`).
   */
  async reap(allocationId: string, waitMs = 2000): Promise<void> {
    if (this.cgroups === 'none') return;
    const deadline = Date.now() + waitMs;
    while (killCgroup(this.cgroups, this.path(allocationId)) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    removeCgroup(this.cgroups, this.path(allocationId));
  }

  private path(allocationId: string): string {
    return `${this.parent}/${allocationId}`;
  }
}

/** The program's path: as given when it names a path, else the first executable on PATH; `spawn X ENOENT` if none. */
export function resolveProgram(command: string, path: string): string {
  if (command.includes('/')) return command;
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  const error = new Error(`spawn ${command} ENOENT`) as NodeJS.ErrnoException;
  error.code = 'ENOENT';
  throw error;
}
