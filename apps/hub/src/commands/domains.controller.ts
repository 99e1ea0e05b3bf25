import { HcnError, domainDefinitionSchema, domainIdSchema, domainStream, z } from '@hcn/contracts';
import { domainDecider, foldRecorded } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, Get, Inject, Param, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import type { Principal } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import { DefineDomainCommand } from './define-domain/define-domain.command';
import type { DomainCommandResult } from './define-domain/define-domain.handler';

const updateBodySchema = domainDefinitionSchema.omit({ domainId: true });

/** The domain tree: define (admin), change (admin), read one definition (viewer). */
@ApiTags('domains')
@Controller('v1/domains')
export class DomainsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Post()
  @RequireRole('admin')
  @ApiOperation({ summary: 'Define a domain: parent, region, labels, scheduling policy, head node' })
  @ApiBody({ schema: z.toJSONSchema(domainDefinitionSchema, { io: 'input' }) as object })
  define(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<DomainCommandResult> {
    const definition = parseBody(domainDefinitionSchema, body, 'DOMAIN.DEFINITION');
    return this.commands.execute(new DefineDomainCommand(definition, 'create', principal.name));
  }

  @Put(':id')
  @RequireRole('admin')
  @ApiOperation({ summary: "Replace a domain's definition" })
  @ApiBody({ schema: z.toJSONSchema(updateBodySchema, { io: 'input' }) as object })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<DomainCommandResult> {
    const domainId = parseBody(domainIdSchema, id, 'DOMAIN.ID');
    const definition = { domainId, ...parseBody(updateBodySchema, body, 'DOMAIN.DEFINITION') };
    return this.commands.execute(new DefineDomainCommand(definition, 'update', principal.name));
  }

  @Get(':id')
  @RequireRole('viewer')
  @ApiOperation({ summary: "One domain's definition (from its stream)" })
  async get(@Param('id') id: string) {
    const domainId = parseBody(domainIdSchema, id, 'DOMAIN.ID');
    const events = await this.store.readStream(domainStream(domainId));
    const state = foldRecorded(domainDecider, events);
    if (!state.definition) throw new HcnError('DOMAIN.NOT_FOUND', `Domain ${domainId} is not defined`);
    return { ...state.definition, revision: events.length - 1 };
  }
}
