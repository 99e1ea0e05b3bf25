/** One column of a table: its header and how a row shows in it. */
export interface Column<T> {
  readonly header: string;
  readonly value: (row: T) => unknown;
  /** Numbers read better right-aligned. */
  readonly align?: 'left' | 'right';
}

/** A cell's text: `-` for nothing, one line. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/\r?\n/g, ' ');
}

/**
 * Columns padded to their widest cell, two spaces apart, headers upper case, no trailing blanks; a right-aligned
 * column (numbers) has its header right-aligned too.
 */
export function renderTable<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const cells = [
    columns.map((c) => c.header.toUpperCase()),
    ...rows.map((row) => columns.map((c) => cell(c.value(row)))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const lines = cells.map((line) =>
    line
      .map((text, i) => {
        const last = i === columns.length - 1;
        if (columns[i].align === 'right') return text.padStart(widths[i]);
        return last ? text : text.padEnd(widths[i]);
      })
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** `Label:  value` lines, values aligned (a describe view); nested lines indented under their label. */
export function renderFields(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length + 1));
  return fields
    .map(([label, value]) => {
      const text = typeof value === 'string' && value.includes('\n') ? value : cell(value);
      const [first, ...rest] = text.split('\n');
      const pad = ' '.repeat(width + 2);
      return [
        `${`${label}:`.padEnd(width)}  ${first}`.trimEnd(),
        ...rest.map((l) => `${pad}${l}`.trimEnd()),
      ].join('\n');
    })
    .join('\n')
    .concat('\n');
}

const BINARY_UNITS = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** Bytes in binary units as quantities are written (`512Mi`, `1.5Gi`); `-` when unknown. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '-';
  if (Math.abs(bytes) < 1024) return String(bytes);
  let value = bytes;
  let unit = '';
  for (const u of BINARY_UNITS) {
    if (Math.abs(value) < 1024) break;
    value /= 1024;
    unit = u;
  }
  return `${trimNumber(value)}${unit}`;
}

/** CPU from millicores: whole cores as `2`, else `2.5` or `250m`. */
export function formatCpu(millis: number | null | undefined): string {
  if (millis === null || millis === undefined || !Number.isFinite(millis)) return '-';
  if (millis % 1000 === 0) return String(millis / 1000);
  return millis < 1000 ? `${millis}m` : trimNumber(millis / 1000);
}

/** A number with at most one decimal, no trailing `.0`. */
export function trimNumber(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(1);
}

/** How long ago an instant was, as `45s`, `12m`, `3h`, `6d`; `-` when unknown. */
export function formatAge(iso: string | null | undefined, now: number): string {
  if (!iso) return '-';
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return '-';
  const seconds = Math.max(0, Math.floor((now - at) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

/** `k=v,k2=v2` (sorted by key), `-` when empty. */
export function formatLabels(labels: Record<string, string> | null | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '-';
}

/** `used/limit` with a formatter, `used` alone when there is no limit. */
export function usedOf(used: number | undefined, limit: number | null | undefined, f: (n: number) => string) {
  const u = f(used ?? 0);
  return limit === null || limit === undefined ? `${u}/-` : `${u}/${f(limit)}`;
}
