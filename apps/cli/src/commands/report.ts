import {
  REPORT_SECTIONS,
  ReportSection,
  parsePeriod,
  readComplianceReport,
  reportCsv,
  reportHtml,
  sectionCsv,
} from '@hcn/audit';
import type { EventStore } from '@hcn/eventstore';
import { Args, option, usage } from '../args';
import { ProgressBar } from '../progress';
import type { Outcome } from './audit';

const KINDS: readonly string[] = ['compliance', ...REPORT_SECTIONS];

/** `hcn report <kind> (--month YYYY-MM | --from ISO --to ISO) [--format json|csv|html]` — the whole log, read once. */
export async function report(store: EventStore, args: Args): Promise<Outcome> {
  const kind = args.positional[1] ?? 'compliance';
  if (!KINDS.includes(kind)) throw usage(`unknown report ${kind}; one of ${KINDS.join(', ')}`);
  const format = option(args, 'format') ?? 'json';
  if (!['json', 'csv', 'html'].includes(format)) throw usage('--format must be json, csv or html');
  const period = parsePeriod({
    month: option(args, 'month'),
    from: option(args, 'from'),
    to: option(args, 'to'),
  });
  const bar = new ProgressBar('reading the log', !!args.options.quiet);
  const result = await readComplianceReport(store, period, '*', bar.update.bind(bar));
  const section = kind === 'compliance' ? undefined : (kind as ReportSection);
  if (format === 'html') return { output: reportHtml(result), status: 0 };
  if (format === 'csv')
    return { output: section ? sectionCsv(result, section) : reportCsv(result), status: 0 };
  const body = section ? { period: result.period, asOf: result.asOf, rows: result[section] } : result;
  return { output: `${JSON.stringify(body, null, 2)}\n`, status: 0 };
}
