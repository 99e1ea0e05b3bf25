import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Delete, Headers, Inject, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { ifMatchRevisions } from '../../common/http-conventions';
import { TemplateCatalog } from '../../scheduling/template-catalog';
import { changeTemplate, loadTemplate } from '../template-command';
import { ApiAnswer } from '../../common/api-answer';
import { templateCommandResultSchema } from '../../common/command-results';

/** `DELETE /v1/templates/:id`: delete a job template. */
@ApiTags('templates')
@RequireRole('operator')
@Controller('v1/templates')
export class DeleteTemplateController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly catalog: TemplateCatalog,
  ) {}

  @Delete(':id')
  @ApiAnswer(templateCommandResultSchema)
  @ApiOperation({ summary: 'Delete a template' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Headers('if-match') ifMatch: string | undefined,
  ) {
    const current = await loadTemplate(this.store, principal, id);
    const change = { type: 'DeleteTemplate' as const, templateId: current.templateId };
    return changeTemplate(
      this.commands,
      this.catalog,
      principal,
      current.namespace,
      change,
      ifMatchRevisions(ifMatch),
    );
  }
}
