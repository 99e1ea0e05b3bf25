import { domainDefinitionSchema, z } from '@hcn/contracts';
import { Body, Controller, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { created } from '../../common/http-conventions';
import { DefineDomainCommand } from './define-domain.command';
import type { DomainCommandResult } from './define-domain.handler';
import { ApiAnswer } from '../../common/api-answer';
import { domainCommandResultSchema } from '../../common/command-results';

/** `POST /v1/domains`: define a domain (admin). */
@ApiTags('domains')
@Controller('v1/domains')
export class DefineDomainController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @ApiAnswer(domainCommandResultSchema)
  @RequireRole('admin')
  @ApiOperation({ summary: 'Define a domain: parent, region, labels, scheduling policy, head node' })
  @ApiBody({ schema: z.toJSONSchema(domainDefinitionSchema, { io: 'input' }) as object })
  async define(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DomainCommandResult> {
    const definition = parseBody(domainDefinitionSchema, body, 'DOMAIN.DEFINITION');
    const result: DomainCommandResult = await this.commands.execute(
      new DefineDomainCommand(definition, 'create', principal.name),
    );
    created(res, `/v1/domains/${definition.domainId}`);
    return result;
  }
}
