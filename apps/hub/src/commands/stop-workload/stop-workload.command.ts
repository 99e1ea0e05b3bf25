import type { Principal } from '../../auth/principal';

/** Stop workload `workloadId` on behalf of `principal`. */
export class StopWorkloadCommand {
  constructor(
    readonly principal: Principal,
    readonly workloadId: string,
    readonly reason: string,
  ) {}
}
