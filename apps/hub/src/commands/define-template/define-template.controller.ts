import { templateDefinitionSchema, z } from '@hcn/contracts';
import { Body, Controller, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { TemplateCatalog } from '../../scheduling/template-catalog';
import { changeTemplate } from '../template-command';

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
  @ApiOperation({ summary: 'Define a job template (spec with ${param} placeholders)' })
  @ApiBody({ schema: z.toJSONSchema(templateDefinitionSchema, { io: 'input' }) as object })
  define(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const definition = parseBody(templateDefinitionSchema, body, 'TEMPLATE.DEFINITION');
    return changeTemplate(this.commands, this.catalog, principal, definition.namespace, {
      type: 'DefineTemplate',
      definition,
    });
  }
}
