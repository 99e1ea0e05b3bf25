// Formatting helpers of the dashboard.

/** Bytes in binary units (1.5 GiB). */
export function bytes(n: number | undefined | null): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** A fraction as a percentage (0.253 -> 25%). */
export function pct(fraction: number | undefined | null): string {
  return fraction === undefined || fraction === null ? '—' : `${Math.round(fraction * 100)}%`;
}

/** How long ago an instant was (3 s ago, 5 min ago). */
export function ago(iso: string | null | undefined, now: number): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** Millicores as cores (1500 -> 1.5). */
export function cores(millis: number): string {
  return `${Number((millis / 1000).toFixed(2))}`;
}

/** The first 8 characters of an id. */
export function short(id: string | null | undefined): string {
  return id ? id.slice(0, 8) : '—';
}

/** Seconds as a short duration (45 s, 3 min 20 s, 2 h 5 min). */
export function duration(seconds: number | null | undefined): string {
  if (seconds === undefined || seconds === null || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
}
