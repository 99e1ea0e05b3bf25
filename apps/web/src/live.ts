// Hooks that keep REST data live: fetch once, then refetch (coalesced) whenever the change feed names a room.
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { Session } from './api';
import type { Change, Feed } from './feed';
import type { NodesStore } from './nodes-store';

/** What every page gets: the change feed and who the token is. */
export interface AppContext {
  feed: Feed;
  session: Session;
  nodes: NodesStore;
}

/** React context of the signed-in app. */
export const Ctx = createContext<AppContext | null>(null);

/** The signed-in app's feed and session. */
export function useApp(): AppContext {
  const ctx = useContext(Ctx);
  if (!ctx) throw new Error('useApp outside the app');
  return ctx;
}

/** The change-feed rooms of the workloads (and quotas) the token may see. */
export function namespaceRooms(session: Session): string[] {
  return session.namespaces.includes('*')
    ? ['namespaces:*']
    : session.namespaces.map((ns) => `namespace:${ns}`);
}

/** Result of a live query. */
export interface Live<T> {
  data: T | undefined;
  error: string | undefined;
  /** Refetches now. */
  reload: () => void;
}

/**
 * Loads `load()` and loads it again after changes in `rooms` (at most one request in flight, at most one every
 * `minGapMs`; `accept` may ignore changes that do not concern this view) and, with `pollMs`, every `pollMs` while
 * the page is visible (and at once when it shows again).
 */
export function useLive<T>(
  load: () => Promise<T>,
  rooms: readonly string[],
  deps: readonly unknown[],
  options: { minGapMs?: number; accept?: (change: Change) => boolean; pollMs?: number } = {},
): Live<T> {
  const { feed } = useApp();
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const state = useRef({
    inFlight: false,
    dirty: false,
    last: 0,
    timer: undefined as number | undefined,
    alive: true,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const minGap = options.minGapMs ?? 250;
  const acceptRef = useRef(options.accept);
  acceptRef.current = options.accept;

  const run = useRef<() => void>(() => undefined);
  run.current = () => {
    const s = state.current;
    if (!s.alive) return;
    if (s.inFlight) {
      s.dirty = true;
      return;
    }
    const wait = s.last + minGap - Date.now();
    if (wait > 0) {
      if (s.timer === undefined)
        s.timer = window.setTimeout(() => ((s.timer = undefined), run.current()), wait);
      return;
    }
    s.inFlight = true;
    s.dirty = false;
    s.last = Date.now();
    loadRef
      .current()
      .then((value) => s.alive && (setData(value), setError(undefined)))
      .catch((e: unknown) => s.alive && setError(e instanceof Error ? e.message : String(e)))
      .finally(() => {
        s.inFlight = false;
        if (s.dirty) run.current();
      });
  };

  useEffect(() => {
    const s = state.current;
    s.alive = true;
    s.last = 0;
    setData(undefined);
    run.current();
    const offs = rooms.map((room) =>
      feed.subscribe(room, (change) => {
        if (change.refresh || !acceptRef.current || acceptRef.current(change)) run.current();
      }),
    );
    const whileShown = () => {
      if (!document.hidden) run.current();
    };
    const poll = options.pollMs ? window.setInterval(whileShown, options.pollMs) : undefined;
    const shown = () => {
      if (poll !== undefined) whileShown();
    };
    document.addEventListener('visibilitychange', shown);
    return () => {
      document.removeEventListener('visibilitychange', shown);
      s.alive = false;
      if (s.timer !== undefined) window.clearTimeout(s.timer);
      s.timer = undefined;
      if (poll !== undefined) window.clearInterval(poll);
      offs.forEach((off) => off());
    };
  }, [feed, rooms.join(','), ...deps]);

  return { data, error, reload: () => run.current() };
}

/** The current time, updated every `ms` (for "seen 3 s ago"). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(t);
  }, [ms]);
  return now;
}
