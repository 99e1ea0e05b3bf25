import type { DomainDefinition } from '@hcn/contracts';

/** Define a domain (`create`) or change its definition (`update`). */
export class DefineDomainCommand {
  constructor(
    readonly definition: DomainDefinition,
    readonly mode: 'create' | 'update',
    readonly actor: string,
    /** If-Match: the revisions the domain's stream may be at (none: any). */
    readonly ifRevision?: readonly number[],
  ) {}
}
