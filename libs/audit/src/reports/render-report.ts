import { REPORT_SECTIONS, ReportSection } from './report.model';
import type { ComplianceReport } from './report.model';

const TITLES: Record<ReportSection, string> = {
  usage: 'Usage per namespace (resource-hours)',
  placements: 'Placements per region and domain',
  residencyViolations: 'Data-residency violations',
  quota: 'Quota denials and breaches',
  delegations: 'Cross-domain delegations',
  blacklistHits: 'Blacklist hits',
  availability: 'Node availability per domain',
};

const COLUMNS: Record<ReportSection, readonly string[]> = {
  usage: [
    'namespace',
    'allocations',
    'cpuCoreHours',
    'memoryGiBHours',
    'acceleratorHours',
    'acceleratorMemoryGiBHours',
    'computeUnitHours',
    'measuredAllocations',
    'measuredCpuCoreHours',
    'peakMemoryGiB',
  ],
  placements: ['region', 'domainId', 'placements'],
  residencyViolations: [
    'at',
    'namespace',
    'workloadId',
    'workloadName',
    'allowedRegions',
    'forbiddenRegions',
    'allocationId',
    'nodeId',
    'domainId',
    'region',
  ],
  quota: ['at', 'namespace', 'kind', 'workload', 'detail'],
  delegations: ['kind', 'from', 'to', 'count'],
  blacklistHits: ['namespace', 'nodeId', 'hits'],
  availability: ['domainId', 'nodes', 'trackedHours', 'onlineHours', 'uptimePercent'],
};

function rowsOf(report: ComplianceReport, section: ReportSection): ReadonlyArray<Record<string, unknown>> {
  return report[section] as unknown as ReadonlyArray<Record<string, unknown>>;
}

function cell(value: unknown): string {
  const text = typeof value === 'number' ? formatNumber(value) : String(value ?? '');
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(4);
}

/** One section as CSV (header row, then one row per line, `\n` line ends). */
export function sectionCsv(report: ComplianceReport, section: ReportSection): string {
  const columns = COLUMNS[section];
  const lines = [columns.join(',')];
  for (const row of rowsOf(report, section)) lines.push(columns.map((c) => cell(row[c])).join(','));
  return `${lines.join('\n')}\n`;
}

/** The whole report as CSV: each section after a `# section` line, a blank line between sections. */
export function reportCsv(report: ComplianceReport): string {
  const head = `# compliance report ${report.period.from} .. ${report.period.to} (log as of ${report.asOf.position ?? '-'})\n`;
  return head + REPORT_SECTIONS.map((s) => `# ${s}\n${sectionCsv(report, s)}`).join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function tableHtml(report: ComplianceReport, section: ReportSection): string {
  const columns = COLUMNS[section];
  const rows = rowsOf(report, section);
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = rows.length
    ? rows
        .map((r) => `<tr>${columns.map((c) => `<td>${escapeHtml(cellText(r[c]))}</td>`).join('')}</tr>`)
        .join('\n')
    : `<tr><td colspan="${columns.length}">none</td></tr>`;
  return `<h2>${escapeHtml(TITLES[section])}</h2>\n<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function cellText(value: unknown): string {
  return typeof value === 'number' ? formatNumber(value) : String(value ?? '');
}

/** A printable, self-contained HTML page of the report (no scripts, print-friendly styles). */
export function reportHtml(report: ComplianceReport): string {
  const { from, to } = report.period;
  const title = `HCN compliance report ${from} – ${to}`;
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>`,
    '<style>body{font:12px sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}',
    'th,td{border:1px solid #999;padding:2px 6px;text-align:left}th{background:#eee}',
    '@media print{h2{page-break-after:avoid}table{page-break-inside:auto}}</style></head><body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>Log as of position ${escapeHtml(report.asOf.position ?? '-')} (${escapeHtml(report.asOf.at ?? '-')}), ${report.asOf.events} events read.</p>`,
    ...REPORT_SECTIONS.map((s) => tableHtml(report, s)),
    '</body></html>',
    '',
  ].join('\n');
}
