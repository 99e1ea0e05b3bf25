import type { QuotaLimits } from '@hcn/contracts';

/** Set the hard limits of a namespace. */
export class SetQuotaCommand {
  constructor(
    readonly namespace: string,
    readonly limits: QuotaLimits,
    readonly actor: string,
  ) {}
}
