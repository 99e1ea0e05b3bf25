import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import type { CliContext } from '../context';
import { usageError } from '../errors';
import { useLog } from '../log-command';
import { ProgressBar } from '../progress';
import { oneOf } from '../values';

/**
 * The report kinds: `compliance` (every section) or one section. The same list as @hcn/audit's REPORT_SECTIONS
 * (a unit spec keeps them equal), written out so help does not load the audit library.
 */
export const REPORT_KINDS = [
  'compliance',
  'usage',
  'placements',
  'residencyViolations',
  'quota',
  'delegations',
  'blacklistHits',
  'availability',
] as const;

/** `hcn report [kind]`: compliance reports over the whole log, read once. */
export function reportCommand(ctx: CliContext): Command {
  return new Command('report')
    .description(
      'compliance report over a period, from the event log (DATABASE_URL or EVENTSTORE_URL); the same log and ' +
        'period give the same bytes',
    )
    .argument('[kind]', `${REPORT_KINDS.join(' | ')}`, 'compliance')
    .option('--month <yyyy-mm>', 'the period: one calendar month (UTC)')
    .option('--from <iso>', 'the period: from this instant (with --to)')
    .option('--to <iso>', 'the period: to this instant')
    .option('--format <format>', 'json | csv | html', oneOf('json', 'csv', 'html'), 'json')
    .option('-o, --out <file>', 'write the report to this file instead of standard output')
    .option('-q, --quiet', 'no progress bar')
    .action(async (kind: string, opts) => {
      if (!(REPORT_KINDS as readonly string[]).includes(kind))
        throw usageError(`unknown report ${kind}; one of ${REPORT_KINDS.join(', ')}`);
      const lib = await import('@hcn/audit');
      const period = lib.parsePeriod({ month: opts.month, from: opts.from, to: opts.to });
      const bar = new ProgressBar('reading the log', !!opts.quiet);
      const result = await useLog(ctx, (store) =>
        lib.readComplianceReport(store, period, '*', bar.update.bind(bar)),
      );
      const section = kind === 'compliance' ? undefined : (kind as (typeof lib.REPORT_SECTIONS)[number]);
      let output: string;
      if (opts.format === 'html') output = lib.reportHtml(result);
      else if (opts.format === 'csv')
        output = section ? lib.sectionCsv(result, section) : lib.reportCsv(result);
      else {
        const body = section ? { period: result.period, asOf: result.asOf, rows: result[section] } : result;
        output = `${JSON.stringify(body, null, 2)}\n`;
      }
      if (opts.out) writeFileSync(opts.out, output);
      else ctx.out(output);
    });
}
