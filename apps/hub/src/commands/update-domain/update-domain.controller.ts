import { domainDefinitionSchema, domainIdSchema, z } from '@hcn/contracts';
import { Body, Controller, Headers, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { ifMatchRevisions } from '../../common/http-conventions';
import { parseBody } from '../../common/parse-body';
import { DefineDomainCommand } from '../define-domain/define-domain.command';
import type { DomainCommandResult } from '../define-domain/define-domain.handler';
import { ApiAnswer } from '../../common/api-answer';
import { domainCommandResultSchema } from '../../common/command-results';

const updateBodySchema = domainDefinitionSchema.omit({ domainId: true });

/** `PUT /v1/domains/:id`: replace a domain's definition (admin; the define-domain handler, mode update). */
@ApiTags('domains')
@Controller('v1/domains')
export class UpdateDomainController {
  constructor(private readonly commands: CommandBus) {}

  @Put(':id')
  @ApiAnswer(domainCommandResultSchema)
  @RequireRole('admin')
  @ApiOperation({ summary: "Replace a domain's definition" })
  @ApiBody({ schema: z.toJSONSchema(updateBodySchema, { io: 'input' }) as object })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<DomainCommandResult> {
    const domainId = parseBody(domainIdSchema, id, 'DOMAIN.ID');
    const definition = { domainId, ...parseBody(updateBodySchema, body, 'DOMAIN.DEFINITION') };
    const ifRevision = ifMatchRevisions(ifMatch);
    return this.commands.execute(new DefineDomainCommand(definition, 'update', principal.name, ifRevision));
  }
}
