import {
  REPORT_SECTIONS,
  parsePeriod,
  readComplianceReport,
  reportCsv,
  reportHtml,
  sectionCsv,
} from '@hcn/audit';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { z } from 'zod';
import { RequireRole } from '../../../auth/auth.guard';
import { CurrentPrincipal } from '../../../auth/current-principal';
import { Principal, visibleNamespaces } from '../../../auth/principal';
import { parseBody } from '../../../common/parse-body';
import { parseFormat } from '../audit-access';

const KINDS = ['compliance', ...REPORT_SECTIONS] as const;
const kindSchema = z.enum(KINDS);

/**
 * Compliance reports over a period (`month=YYYY-MM`, or `from` and `to`), streamed from the log: usage in
 * resource-hours, placements per region and domain, data-residency violations, quota denials and breaches,
 * cross-domain delegations, blacklist hits, node availability. JSON, CSV or a printable HTML page; the same log
 * and period give the same bytes. A namespace-scoped token sees its namespaces' rows only.
 */
@ApiTags('reports')
@RequireRole('operator')
@Controller('v1/reports')
export class ReportsController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Get(':kind')
  @ApiOperation({
    summary: `One report (${KINDS.join(', ')}) for ?month=YYYY-MM or ?from=&to=; format=json|csv|html`,
  })
  async report(
    @CurrentPrincipal() principal: Principal,
    @Param('kind') kind: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: Response,
  ) {
    const section = parseBody(kindSchema, kind, 'AUDIT.REPORT_KIND');
    const format = parseFormat(query.format, ['json', 'csv', 'html'] as const);
    const period = parsePeriod(query);
    const report = await readComplianceReport(this.store, period, visibleNamespaces(principal));
    switch (format) {
      case 'json':
        return section === 'compliance'
          ? report
          : { period: report.period, asOf: report.asOf, rows: report[section] };
      case 'csv':
        res.type('text/csv; charset=utf-8');
        return section === 'compliance' ? reportCsv(report) : sectionCsv(report, section);
      case 'html':
        res.type('text/html; charset=utf-8');
        return reportHtml(report);
      default: {
        const never: never = format;
        return never;
      }
    }
  }
}
