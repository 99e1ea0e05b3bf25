import { templateDefinitionSchema, z } from '@hcn/contracts';
import { Body, Controller, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { created } from '../../common/http-conventions';
import { TemplateCatalog } from '../../scheduling/template-catalog';
import { changeTemplate } from '../template-command';
import { ApiAnswer } from '../../common/api-answer';
import { templateCommandResultSchema } from '../../common/command-results';

/** `POST /v1/templates`: define a job template. */
@ApiTags('templates')
@RequireRole('operator')
@Controller('v1/templates')
export class DefineTemplateController {
  constructor(
    private readonly commands: CommandBus,
    private readonly catalog: TemplateCatalog,
  ) {}

  @Post()
  @ApiAnswer(templateCommandResultSchema)
  @ApiOperation({ summary: 'Define a job template (spec with ${param} placeholders)' })
  @ApiBody({ schema: z.toJSONSchema(templateDefinitionSchema, { io: 'input' }) as object })
  async define(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const definition = parseBody(templateDefinitionSchema, body, 'TEMPLATE.DEFINITION');
    const result = await changeTemplate(this.commands, this.catalog, principal, definition.namespace, {
      type: 'DefineTemplate',
      definition,
    });
    created(res, `/v1/templates/${definition.templateId}`);
    return result;
  }
}
