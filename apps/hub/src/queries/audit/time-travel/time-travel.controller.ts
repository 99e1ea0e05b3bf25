import { domainAt, nodeAt, parseInstant, quotaAt, taskQueueAt } from '@hcn/audit';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequireRole } from '../../../auth/auth.guard';
import { CurrentPrincipal } from '../../../auth/current-principal';
import { Principal, requireNamespace } from '../../../auth/principal';
import { parseBody } from '../../../common/parse-body';
import { CLOCK, Clock } from '../../../tokens';

const nodeId = z.string().uuid();
const name = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);

/** Time travel: a node, a domain or a namespace's quota as of an instant, replayed from its stream. */
@ApiTags('audit')
@RequireRole('operator')
@Controller('v1/audit')
export class AuditTimeTravelController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private instant(at: unknown): number {
    return at === undefined ? this.clock().getTime() : parseInstant(at);
  }

  @Get('nodes/:id')
  @ApiOperation({
    summary: 'A node as of ?at=ISO (default now): status, draining, labels, capacity, reservations',
  })
  node(@Param('id') id: string, @Query('at') at: unknown) {
    const atMs = this.instant(at);
    return nodeAt(this.store, parseBody(nodeId, id, 'AUDIT.NODE_ID'), atMs);
  }

  @Get('domains/:id')
  @ApiOperation({
    summary:
      'A domain as of ?at=ISO (default now): definition, member nodes and their status, counts, capacity, reserved',
  })
  domain(@Param('id') id: string, @Query('at') at: unknown) {
    const atMs = this.instant(at);
    return domainAt(this.store, parseBody(name, id, 'AUDIT.DOMAIN_ID'), atMs);
  }

  @Get('quotas/:namespace')
  @ApiOperation({ summary: "A namespace's quota limits, usage and holdings as of ?at=ISO (default now)" })
  quota(
    @CurrentPrincipal() principal: Principal,
    @Param('namespace') namespace: string,
    @Query('at') at: unknown,
  ) {
    const atMs = this.instant(at);
    const ns = parseBody(name, namespace, 'AUDIT.NAMESPACE');
    requireNamespace(principal, ns, { code: 'AUDIT.QUOTA_NOT_FOUND', message: `No quota for ${ns}` });
    return quotaAt(this.store, ns, atMs);
  }

  @Get('taskqueues/:id')
  @ApiOperation({
    summary:
      'A task queue as of ?at=ISO (default now): its tasks then, and every step to then with actor and time',
  })
  async taskQueue(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query('at') at: unknown,
  ) {
    const atMs = this.instant(at);
    const queueId = parseBody(nodeId, id, 'AUDIT.TASKQUEUE_ID');
    // the namespace is the queue's own (as created), whatever the instant asked for
    const now = await taskQueueAt(this.store, queueId, this.clock().getTime());
    const hidden = { code: 'AUDIT.TASKQUEUE_NOT_FOUND', message: `taskqueue-${queueId} is not in the log` };
    requireNamespace(principal, now.namespace ?? '', hidden);
    return taskQueueAt(this.store, queueId, atMs);
  }
}
