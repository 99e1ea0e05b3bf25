import type { Principal } from '../../auth/principal';

/** Give up allocation `allocationId` of workload `workloadId` (unknown: its site offline) on behalf of `principal`. */
export class GiveUpAllocationCommand {
  constructor(
    readonly principal: Principal,
    readonly workloadId: string,
    readonly allocationId: string,
    readonly reason: string,
  ) {}
}
