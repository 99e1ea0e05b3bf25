import type { TemplateCommand } from '@hcn/domain';

/** Define, replace or delete a job template. */
export class TemplateChangeCommand {
  constructor(
    readonly change: TemplateCommand,
    readonly actor: string,
  ) {}
}
