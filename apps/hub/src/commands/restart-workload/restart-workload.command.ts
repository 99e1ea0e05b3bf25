import type { Principal } from '../../auth/principal';

/** Restart workload `workloadId` on behalf of `principal`. */
export class RestartWorkloadCommand {
  constructor(
    readonly principal: Principal,
    readonly workloadId: string,
    readonly reason: string,
  ) {}
}
