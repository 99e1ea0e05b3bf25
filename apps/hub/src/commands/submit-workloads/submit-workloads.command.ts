import type { WorkloadSpec } from '@hcn/contracts';
import type { Principal } from '../../auth/principal';

/** One workload of a batch: a validated spec, optionally under an idempotency key. */
export interface BatchItem {
  readonly spec: WorkloadSpec;
  readonly idempotencyKey: string | null;
}

/** Submit many workloads of one namespace at once: admitted as a whole, placed together. */
export class SubmitWorkloadsCommand {
  constructor(
    readonly principal: Principal,
    readonly items: readonly BatchItem[],
  ) {}
}
