import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { loadTemplate } from '../commands/template-command';
import { TemplateCatalog } from '../scheduling/template-catalog';

/** `GET /v1/templates[/:id]`: the job templates of the namespaces the token may see. */
@ApiTags('templates')
@RequireRole('viewer')
@Controller('v1/templates')
export class TemplateQueriesController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly catalog: TemplateCatalog,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the templates of the namespaces the token may see' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.catalog.list(visibleNamespaces(principal));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One template' })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return loadTemplate(this.store, principal, id);
  }
}
