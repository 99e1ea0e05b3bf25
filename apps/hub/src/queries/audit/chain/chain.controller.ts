import { renderStitchedText } from '@hcn/audit';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireRole } from '../../../auth/auth.guard';
import { CurrentPrincipal } from '../../../auth/current-principal';
import type { Principal } from '../../../auth/principal';
import { Federation } from '../../../federation/federation';
import { CLOCK, Clock } from '../../../tokens';
import { parseFormat, visibleWorkloadEvents } from '../audit-access';
import { StitchedAudit, siteChainSource } from '../sites/stitched-audit';

/** Chain replay: a workload's whole delegation history, rebuilt from its stream (never from read models). */
@ApiTags('audit')
@RequireRole('operator')
@Controller('v1/audit/workloads')
export class AuditChainController {
  private readonly stitched: StitchedAudit;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    federation: Federation,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.stitched = new StitchedAudit(federation.config.siteId ?? '', siteChainSource(federation, clock));
  }

  @Get(':id/chain')
  @ApiOperation({
    summary:
      'Every hop (scope from/to, candidates, filter reasons, scores), rejection, placement, allocation outcome and stop request, with actors, correlation/causation ids and times; hand-overs to other sites stitched with those sites’ chains (sites[]: each with its stream head and verification); format=json|text',
  })
  async chain(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query('format') format: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const as = parseFormat(format, ['json', 'text'] as const);
    const chain = await this.stitched.chain(await visibleWorkloadEvents(this.store, principal, id));
    if (as === 'json') return chain;
    res.type('text/plain; charset=utf-8');
    return renderStitchedText(chain);
  }
}
