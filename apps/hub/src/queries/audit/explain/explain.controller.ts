import { DecisionSelector, explainDecision } from '@hcn/audit';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Logger, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { RequireRole } from '../../../auth/auth.guard';
import { CurrentPrincipal } from '../../../auth/current-principal';
import type { Principal } from '../../../auth/principal';
import { parseBody } from '../../../common/parse-body';
import { READ_MODELS } from '../../../tokens';
import { visibleWorkloadEvents } from '../audit-access';
import { storedCheckpoints } from './stored-checkpoints';

const logger = new Logger('audit-explain');

const selectorSchema = z.union([
  z.object({ hop: z.coerce.number().int().min(0) }).strict(),
  z.object({ decision: z.coerce.number().int().min(0) }).strict(),
]);

/**
 * Decision replay: rebuilds the cluster snapshot the scheduler saw at a recorded decision from the log (the
 * hub's own ClusterFold, from the projector's latest cluster checkpoint before the decision, else from the start of
 * the log, up to the decision) and re-runs the recorded policy; `matches` says whether the result equals the record.
 */
@ApiTags('audit')
@RequireRole('operator')
@Controller('v1/audit/workloads')
export class AuditExplainController {
  private readonly checkpoints;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) db: DataSource,
  ) {
    this.checkpoints = storedCheckpoints(db, (error) =>
      logger.warn(`cluster checkpoints unreadable, explaining from the start of the log: ${error.message}`),
    );
  }

  @Get(':id/explain')
  @ApiOperation({ summary: 'Replay one decision (?hop=N: the decision holding hop N; or ?decision=D)' })
  async explain(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: unknown) {
    const events = await visibleWorkloadEvents(this.store, principal, id);
    const selector: DecisionSelector = parseBody(selectorSchema, query, 'AUDIT.SELECTOR');
    return explainDecision(this.store, events, selector, { checkpoints: this.checkpoints });
  }
}
