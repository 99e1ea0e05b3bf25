import { templateDefinitionSchema } from '@hcn/contracts';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, Headers, Inject, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { ifMatchRevisions } from '../../common/http-conventions';
import { parseBody } from '../../common/parse-body';
import { TemplateCatalog } from '../../scheduling/template-catalog';
import { changeTemplate, loadTemplate } from '../template-command';
import { ApiAnswer } from '../../common/api-answer';
import { templateCommandResultSchema } from '../../common/command-results';

/** `PUT /v1/templates/:id`: replace a job template. */
@ApiTags('templates')
@RequireRole('operator')
@Controller('v1/templates')
export class UpdateTemplateController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly catalog: TemplateCatalog,
  ) {}

  @Put(':id')
  @ApiAnswer(templateCommandResultSchema)
  @ApiOperation({ summary: 'Replace a template' })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
  ) {
    const current = await loadTemplate(this.store, principal, id);
    const definition = parseBody(
      templateDefinitionSchema,
      { ...(body as object), templateId: current.templateId },
      'TEMPLATE.DEFINITION',
    );
    return changeTemplate(
      this.commands,
      this.catalog,
      principal,
      definition.namespace,
      {
        type: 'UpdateTemplate',
        definition,
      },
      ifMatchRevisions(ifMatch),
    );
  }
}
