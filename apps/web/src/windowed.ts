// A server-paged list for a windowed table: only the page around the rows in view is fetched (and refetched on
// changes), so lists of any length stay reachable without loading them whole.
import { useCallback, useMemo, useRef, useState } from 'react';
import { get } from './api';
import { useLive } from './live';
import type { Change } from './feed';

/** Rows fetched around the first row in view: this many before it is page-aligned, twice this in all. */
export const WINDOW_PAGE = 200;

/** A row out of the fetched window (shown as a placeholder until the window reaches it). */
export interface Gap {
  gap: number;
}

/** Whether a row is a placeholder. */
export function isGap<T extends object>(row: T | Gap): row is Gap {
  return 'gap' in row;
}

/** One page of a paged API listing. */
interface Page<T> {
  items: T[];
  total: number;
  offset: number;
}

/** The rows of a windowed list: `total` long, the fetched window real, the rest placeholders. */
export interface Windowed<T> {
  rows: Array<T | Gap>;
  total: number | undefined;
  error: string | undefined;
  /** Pass to the table: the first row in view moves the window. */
  onRange: (first: number) => void;
}

function spread<T>(page: Page<T> | undefined): Array<T | Gap> {
  if (!page) return [];
  return Array.from({ length: page.total }, (_, i) => page.items[i - page.offset] ?? { gap: i });
}

/**
 * Loads `path(offset, limit)` for the window around the rows in view, live (`rooms`, `options` as useLive);
 * `key` names the listing (a new filter starts from an empty list instead of showing the old one's rows).
 */
export function useWindowed<T>(
  path: (offset: number, limit: number) => string,
  rooms: readonly string[],
  key: string,
  options: { accept?: (change: Change) => boolean; pollMs?: number } = {},
): Windowed<T> {
  const [offset, setOffset] = useState(0);
  const live = useLive(() => get<Page<T>>(path(offset, 2 * WINDOW_PAGE)), rooms, [offset, key], options);
  // The last page stays on screen while the next window loads (useLive starts each new query empty).
  const kept = useRef<{ key: string; page?: Page<T> }>({ key });
  if (kept.current.key !== key) kept.current = { key };
  if (live.data) kept.current.page = live.data;
  const page = kept.current.page;
  const rows = useMemo(() => spread(page), [page]);
  const onRange = useCallback(
    (first: number) => setOffset(Math.floor(first / WINDOW_PAGE) * WINDOW_PAGE),
    [],
  );
  return { rows, total: page?.total, error: live.error, onRange };
}
