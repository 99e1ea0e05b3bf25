// A cursor-paged list for a windowed table: only the pages around the rows in view are fetched (and refetched on
// changes), so lists of any length stay reachable without loading them whole.
import { useCallback, useMemo, useRef, useState } from 'react';
import { ListPage, get } from './api';
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

/** The fetched window: its rows from `offset` on, and how many rows the list has. */
interface Window<T> {
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

function spread<T>(page: Window<T> | undefined): Array<T | Gap> {
  if (!page) return [];
  return Array.from({ length: page.total }, (_, i) => page.items[i - page.offset] ?? { gap: i });
}

/**
 * The window of `2 * WINDOW_PAGE` rows from `offset` (a multiple of WINDOW_PAGE) of a cursor-paged listing: the
 * cursor where it starts is one kept from an earlier fetch (`cursors`: page number -> cursor), else the pages before
 * it are walked from the nearest kept one. A list shorter than `offset` answers its last page.
 */
async function loadWindow<T>(
  path: (limit: number, cursor?: string) => string,
  offset: number,
  cursors: Map<number, string>,
): Promise<Window<T>> {
  const target = offset / WINDOW_PAGE;
  let at = target;
  while (at > 0 && !cursors.has(at)) at--;
  for (; at < target; at++) {
    const page = await get<ListPage<T>>(path(WINDOW_PAGE, cursors.get(at)));
    if (!page.nextCursor) return { items: page.items, total: page.total ?? 0, offset: at * WINDOW_PAGE };
    cursors.set(at + 1, page.nextCursor);
  }
  const page = await get<ListPage<T>>(path(2 * WINDOW_PAGE, cursors.get(target)));
  if (page.nextCursor) cursors.set(target + 2, page.nextCursor);
  return { items: page.items, total: page.total ?? offset + page.items.length, offset };
}

/**
 * Loads the window around the rows in view from `path(limit, cursor)`, live (`rooms`, `options` as useLive);
 * `key` names the listing (a new filter starts from an empty list instead of showing the old one's rows).
 */
export function useWindowed<T>(
  path: (limit: number, cursor?: string) => string,
  rooms: readonly string[],
  key: string,
  options: { accept?: (change: Change) => boolean; pollMs?: number } = {},
): Windowed<T> {
  const [offset, setOffset] = useState(0);
  const cursors = useRef<{ key: string; at: Map<number, string> }>({ key, at: new Map() });
  if (cursors.current.key !== key) cursors.current = { key, at: new Map() };
  const live = useLive(() => loadWindow<T>(path, offset, cursors.current.at), rooms, [offset, key], options);
  // The last window stays on screen while the next one loads (useLive starts each new query empty).
  const kept = useRef<{ key: string; page?: Window<T> }>({ key });
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
