import type { TemplateCommand } from '@hcn/domain';

/** Define, replace or delete a job template. */
export class TemplateChangeCommand {
  constructor(
    readonly change: TemplateCommand,
    readonly actor: string,
    /** If-Match: the revisions the template's stream may be at (none: any). */
    readonly ifRevision?: readonly number[],
  ) {}
}
