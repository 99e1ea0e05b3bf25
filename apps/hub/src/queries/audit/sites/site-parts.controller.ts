import type { StitchedVerification } from '@hcn/audit';
import { SiteChainPart, delegationIdSchema, siteChainPartSchema } from '@hcn/contracts';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../../auth/auth.guard';
import { CurrentPrincipal } from '../../../auth/current-principal';
import { Principal, requireNamespace } from '../../../auth/principal';
import { ApiAnswer } from '../../../common/api-answer';
import { parseBody } from '../../../common/parse-body';
import { Federation } from '../../../federation/federation';
import { CLOCK, Clock } from '../../../tokens';
import { visibleWorkloadEvents } from '../audit-access';
import { StitchedAudit, siteChainSource } from './stitched-audit';

/** Stitched audit across sites: verify of a workload's chain here and at the sites it was delegated to. */
@ApiTags('audit')
@RequireRole('operator')
@Controller('v1/audit/workloads')
export class AuditSitePartsController {
  private readonly stitched: StitchedAudit;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    federation: Federation,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.stitched = new StitchedAudit(federation.config.siteId ?? '', siteChainSource(federation, clock));
  }

  @Get(':id/verify')
  @ApiOperation({
    summary:
      "Verify a workload's stitched chain: this site's stream (hash chain) and, for each hand-over to another site, that site's stream of the workload (links recomputed from its genesis, its head, heads recorded here, origin); ok only when all hold and every site answered",
  })
  async verify(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<StitchedVerification> {
    // the report names streams of this workload only: its namespace is enough
    return this.stitched.verify(this.store, await visibleWorkloadEvents(this.store, principal, id));
  }

  @Get(':id/sites/:delegationId')
  @ApiAnswer(siteChainPartSchema)
  @ApiOperation({
    summary:
      'The stream of the workload at the site a hand-over went to, as that site answered it (unchecked: `hcn audit replay|verify` check it against the log)',
  })
  async part(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('delegationId') delegationId: string,
  ): Promise<SiteChainPart> {
    const delegation = parseBody(delegationIdSchema, delegationId, 'AUDIT.DELEGATION_ID');
    const events = await visibleWorkloadEvents(this.store, principal, id);
    requireNamespace(principal, events[0].type === 'WorkloadSubmitted' ? events[0].data.spec.namespace : '*');
    return this.stitched.rawPart(events, delegation);
  }
}
