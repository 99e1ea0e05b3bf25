import { HcnError, domainIdSchema, domainStream, type z } from '@hcn/contracts';
import { domainDecider, foldRecorded } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { setEtag } from '../common/http-conventions';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../auth/auth.guard';
import { parseBody } from '../common/parse-body';
import { ApiAnswer } from '../common/api-answer';
import { domainSchema } from './domains.query';

/** `GET /v1/domains/:id`: one domain's definition, from its stream (the list is in nodes.controller.ts). */
@ApiTags('domains')
@Controller('v1/domains')
export class DomainQueriesController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Get(':id')
  @RequireRole('viewer')
  @ApiOperation({ summary: "One domain's definition (from its stream)" })
  @ApiAnswer(domainSchema)
  async get(
    @Param('id') id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<z.output<typeof domainSchema>> {
    const domainId = parseBody(domainIdSchema, id, 'DOMAIN.ID');
    const events = await this.store.readStream(domainStream(domainId));
    const state = foldRecorded(domainDecider, events);
    if (!state.definition) throw new HcnError('DOMAIN.NOT_FOUND', `Domain ${domainId} is not defined`);
    const revision = events[events.length - 1].revision;
    setEtag(res, revision);
    return { ...state.definition, revision };
  }
}
