import type { QuotaLimits } from '@hcn/contracts';

/** Set the hard limits of a namespace. */
export class SetQuotaCommand {
  constructor(
    readonly namespace: string,
    readonly limits: QuotaLimits,
    readonly actor: string,
    /** If-Match: the revisions the namespace's quota stream may be at (none: any). */
    readonly ifRevision?: readonly number[],
  ) {}
}
