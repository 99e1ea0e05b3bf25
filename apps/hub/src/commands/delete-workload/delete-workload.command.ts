import type { Principal } from '../../auth/principal';

/** Delete workload `workloadId` on behalf of `principal`. */
export class DeleteWorkloadCommand {
  constructor(
    readonly principal: Principal,
    readonly workloadId: string,
    readonly reason: string,
  ) {}
}
