import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { templateDefinitionSchema, z } from '@hcn/contracts';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { setEtag } from '../common/http-conventions';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { loadTemplateAt } from '../commands/template-command';
import { TemplateCatalog } from '../scheduling/template-catalog';
import { parseBody } from '../common/parse-body';
import { Keyset, pageInMemory } from './cursor';
import { ApiQueries, pageDocs, pageShape } from './list-query';
import { ApiAnswer, pageOf } from '../common/api-answer';

const listTemplatesQuerySchema = z.object({ ...pageShape }).strict();
/** A template as the API answers it: its definition. */
const templateSchema = templateDefinitionSchema.meta({ id: 'Template' });
const templatePageSchema = pageOf(templateSchema, 'TemplatePage');
/** Templates by id (unique). */
const KEYSET: Keyset = { sortName: 'templateId', sort: { sql: '', type: 'text' }, order: 'asc', ties: [] };

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
  @ApiOperation({ summary: 'List the templates of the namespaces the token may see, by id' })
  @ApiQueries(pageDocs, listTemplatesQuerySchema)
  @ApiAnswer(templatePageSchema)
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: unknown,
  ): z.output<typeof templatePageSchema> {
    const page = parseBody(listTemplatesQuerySchema, query, 'TEMPLATES.QUERY');
    const all = this.catalog.list(visibleNamespaces(principal));
    return { ...pageInMemory(all, KEYSET, (t) => [t.templateId], page), total: all.length };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One template' })
  @ApiAnswer(templateSchema)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<z.output<typeof templateSchema>> {
    const { definition, revision } = await loadTemplateAt(this.store, principal, id);
    setEtag(res, revision);
    return definition;
  }
}
