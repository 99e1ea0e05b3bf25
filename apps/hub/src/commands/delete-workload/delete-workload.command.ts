import type { Principal } from '../../auth/principal';

/** Delete workload `workloadId` on behalf of `principal`. */
export class DeleteWorkloadCommand {
  constructor(
    readonly principal: Principal,
    readonly workloadId: string,
    readonly reason: string,
    /** If-Match: the revisions the workload's stream may be at (none: any). */
    readonly ifRevision?: readonly number[],
  ) {}
}
