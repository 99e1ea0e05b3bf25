import { SitesReport, verifySiteParts } from '@hcn/audit';
import type { HashChainReport } from '@hcn/eventstore';
import { EVENT_STORE, EventStore, verifyHashChain } from '@hcn/eventstore';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../../auth/auth.guard';
import { CurrentPrincipal } from '../../../auth/current-principal';
import { Principal, requireNamespace } from '../../../auth/principal';
import { Federation } from '../../../federation/federation';
import { CLOCK, Clock } from '../../../tokens';
import { siteChainSource } from '../sites/stitched-audit';
import { VerifyQuery, parseSitesFlag, parseVerifyQuery } from './verify-query';

/** Tamper evidence: recomputes the hash chain of every stored event (or one stream's) and names the first break. */
@ApiTags('audit')
@RequireRole('operator')
@Controller('v1/audit')
export class AuditVerifyController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly federation: Federation,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

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
  @ApiQuery({
    name: 'sites',
    required: false,
    description:
      "true: also every other site's part of each workload handed to another site (`sites`: parts that do not hold, parts not read; ok only when all hold)",
  })
  async verify(
    @CurrentPrincipal() principal: Principal,
    @Query() query: VerifyQuery,
  ): Promise<HashChainReport & { sites?: SitesReport }> {
    // The report names streams and events of every namespace: only tokens for all namespaces may ask.
    requireNamespace(principal, '*');
    const withSites = parseSitesFlag(query.sites);
    const report = await verifyHashChain(this.store, parseVerifyQuery(query));
    if (!withSites) return report;
    const source = siteChainSource(this.federation, this.clock);
    const sites = await verifySiteParts(this.store, this.federation.config.siteId ?? '', source);
    return { ...report, ok: report.ok && sites.ok, sites };
  }
}
