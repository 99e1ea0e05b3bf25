import {
  HcnError,
  TemplateDefinition,
  templateDefinitionSchema,
  templateStream,
  workloadSpecSchema,
  z,
} from '@hcn/contracts';
import { TemplateCommand, foldRecorded, instantiateTemplate, templateDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, Delete, Get, Inject, Param, Post, Put, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, requireNamespace, visibleNamespaces } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import { TemplateCatalog } from '../scheduling/template-catalog';
import { TemplateChangeCommand } from './define-template/define-template.command';
import { SubmitWorkloadCommand } from './submit-workload/submit-workload.command';
import type { SubmitWorkloadResult } from './submit-workload/submit-workload.handler';

const templateIdSchema = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
const instantiateBodySchema = z
  .object({
    parameters: z.record(z.string(), z.string().max(4096)).default({}),
    idempotencyKey: z.string().min(1).max(128).optional(),
  })
  .strict();

/** Job templates: workload specs with parameters, instantiated into workloads. */
@ApiTags('templates')
@RequireRole('operator')
@Controller('v1/templates')
export class TemplatesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly catalog: TemplateCatalog,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Define a job template (spec with ${param} placeholders)' })
  @ApiBody({ schema: z.toJSONSchema(templateDefinitionSchema, { io: 'input' }) as object })
  define(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const definition = parseBody(templateDefinitionSchema, body, 'TEMPLATE.DEFINITION');
    return this.change(principal, definition.namespace, { type: 'DefineTemplate', definition });
  }

  @Get()
  @RequireRole('viewer')
  @ApiOperation({ summary: 'List the templates of the namespaces the token may see' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.catalog.list(visibleNamespaces(principal));
  }

  @Get(':id')
  @RequireRole('viewer')
  @ApiOperation({ summary: 'One template' })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.load(principal, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace a template' })
  async update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const current = await this.load(principal, id);
    const definition = parseBody(
      templateDefinitionSchema,
      { ...(body as object), templateId: current.templateId },
      'TEMPLATE.DEFINITION',
    );
    return this.change(principal, definition.namespace, { type: 'UpdateTemplate', definition });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a template' })
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const current = await this.load(principal, id);
    return this.change(principal, current.namespace, {
      type: 'DeleteTemplate',
      templateId: current.templateId,
    });
  }

  @Post(':id/instantiate')
  @ApiOperation({ summary: 'Submit a workload from a template and parameter values' })
  @ApiBody({ schema: z.toJSONSchema(instantiateBodySchema, { io: 'input' }) as object })
  async instantiate(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubmitWorkloadResult> {
    const template = await this.load(principal, id);
    const { parameters, idempotencyKey } = parseBody(instantiateBodySchema, body, 'TEMPLATE.INSTANTIATE');
    const filled = { namespace: template.namespace, ...instantiateTemplate(template, parameters) };
    const spec = parseBody(workloadSpecSchema, filled, 'TEMPLATE.SPEC');
    const result: SubmitWorkloadResult = await this.commands.execute(
      new SubmitWorkloadCommand(principal, spec, idempotencyKey ?? null),
    );
    response.status(result.created ? 201 : 200);
    return result;
  }

  private async load(principal: Principal, id: string): Promise<TemplateDefinition> {
    const templateId = parseBody(templateIdSchema, id, 'TEMPLATE.ID');
    const events = await this.store.readStream(templateStream(templateId));
    const definition = foldRecorded(templateDecider, events).definition;
    const notFound = { code: 'TEMPLATE.NOT_FOUND', message: `Template ${templateId} does not exist` };
    if (!definition) throw new HcnError(notFound.code, notFound.message);
    requireNamespace(principal, definition.namespace, notFound);
    return definition;
  }

  private async change(principal: Principal, namespace: string, change: TemplateCommand) {
    requireNamespace(principal, namespace);
    const result = await this.commands.execute(new TemplateChangeCommand(change, principal.name));
    if (change.type === 'DeleteTemplate')
      this.catalog.apply({ type: 'TemplateDeleted', data: { templateId: change.templateId } });
    else this.catalog.apply({ type: 'TemplateDefined', data: change.definition });
    return result;
  }
}
