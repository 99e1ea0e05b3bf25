import type { Principal } from '../../auth/principal';

/** Stop many workloads on behalf of `principal` (the task queue saga retiring a task's workloads). */
export class StopWorkloadsCommand {
  constructor(
    readonly principal: Principal,
    readonly workloadIds: readonly string[],
    readonly reason: string,
  ) {}
}

/** What became of each workload of a StopWorkloadsCommand. */
export interface StopWorkloadsResult {
  /** Workloads whose stop was recorded now, or that were stopping already. */
  readonly stopped: readonly string[];
  /** Workloads missing or not visible to the principal. */
  readonly notFound: readonly string[];
  /** Workloads whose stop the decider refused or whose append failed, with why. */
  readonly refused: ReadonlyArray<{ readonly workloadId: string; readonly error: unknown }>;
}
