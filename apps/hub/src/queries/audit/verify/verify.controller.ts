import type { HashChainReport } from '@hcn/eventstore';
import { EVENT_STORE, EventStore, verifyHashChain } from '@hcn/eventstore';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../../auth/auth.guard';
import { CurrentPrincipal } from '../../../auth/current-principal';
import { Principal, requireNamespace } from '../../../auth/principal';
import { VerifyQuery, parseVerifyQuery } from './verify-query';

/** Tamper evidence: recomputes the hash chain of every stored event (or one stream's) and names the first break. */
@ApiTags('audit')
@RequireRole('operator')
@Controller('v1/audit')
export class AuditVerifyController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Get('verify')
  @ApiOperation({
    summary:
      'Verify the hash chain: each event hash = sha256(prevHash + content hash), prevHash = the previous event hash of its stream; reports the first broken link and streams checked from a retained event after an expired head',
  })
  @ApiQuery({ name: 'stream', required: false })
  @ApiQuery({
    name: 'from',
    required: false,
    description: 'ISO-8601 date or instant with a zone (inclusive)',
  })
  @ApiQuery({ name: 'to', required: false, description: 'ISO-8601 date or instant with a zone (inclusive)' })
  verify(@CurrentPrincipal() principal: Principal, @Query() query: VerifyQuery): Promise<HashChainReport> {
    // The report names streams and events of every namespace: only tokens for all namespaces may ask.
    requireNamespace(principal, '*');
    return verifyHashChain(this.store, parseVerifyQuery(query));
  }
}
