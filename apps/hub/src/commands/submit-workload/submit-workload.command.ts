import type { WorkloadSpec } from '@hcn/contracts';
import type { Principal } from '../../auth/principal';

/** Submit a validated workload spec, optionally under an idempotency key. */
export class SubmitWorkloadCommand {
  constructor(
    readonly principal: Principal,
    readonly spec: WorkloadSpec,
    readonly idempotencyKey: string | null,
  ) {}
}
