import type { DelegatedFrom, WorkloadSpec } from '@hcn/contracts';
import type { Principal } from '../../auth/principal';

/** One workload of a batch: a validated spec, optionally under an idempotency key. */
export interface BatchItem {
  readonly spec: WorkloadSpec;
  readonly idempotencyKey: string | null;
  /** A workload a parent site delegated to this one (federation): recorded on its WorkloadSubmitted. */
  readonly delegatedFrom?: DelegatedFrom;
}

/** Submit workloads of one namespace at once (a single submission is a batch of one): admitted as a whole, placed together. */
export class SubmitWorkloadsCommand {
  constructor(
    readonly principal: Principal,
    readonly items: readonly BatchItem[],
    /** A single submission (`POST /v1/workloads`, a template instantiated) as a batch of one: its metrics and context. */
    readonly single = false,
    /** Placed whole now or not at all (a delegation): an unschedulable instance gives everything back and refuses. */
    readonly wholly = false,
  ) {}
}
