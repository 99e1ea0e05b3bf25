import type { WorkloadSpec } from '@hcn/contracts';
import type { Principal } from '../../auth/principal';

/** Replace the spec of workload `workloadId`. */
export class UpdateWorkloadCommand {
  constructor(
    readonly principal: Principal,
    readonly workloadId: string,
    readonly spec: WorkloadSpec,
    /** If-Match: the revisions the workload's stream may be at (none: any). */
    readonly ifRevision?: readonly number[],
  ) {}
}
