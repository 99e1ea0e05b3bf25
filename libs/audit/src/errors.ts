import { HcnError } from '@hcn/contracts';

/** An audit request that cannot be answered (unknown workload, bad period, no such decision). */
export class AuditError extends HcnError {}
