// All nodes, kept live: loaded once in pages of 1,000, then only the rows the change feed names are refetched
// (those on screen at once, the others every few seconds).
import { useSyncExternalStore } from 'react';
import { Node, get, getAll } from './api';
import type { Feed } from './feed';

const BY_IDS = 100;
/** More changed ids than this in one flush: reload everything instead of patching. */
const PATCH_LIMIT = 1000;
/** Rows out of view are refreshed this often (heartbeats change every row every few seconds). */
const BACKGROUND_MS = 2000;

interface Snapshot {
  nodes: Node[];
  byId: ReadonlyMap<string, Node>;
  loaded: boolean;
  error?: string;
}

/** The live node list of one signed-in page. */
export class NodesStore {
  private snapshot: Snapshot = { nodes: [], byId: new Map(), loaded: false };
  private readonly listeners = new Set<() => void>();
  private pending = new Set<string>();
  private visible = new Set<string>();
  private lastBackground = 0;
  private reloadAll = true;
  private busy = false;
  private timer: number | undefined;
  private timerAt = 0;
  private last = 0;
  private readonly off: () => void;

  constructor(
    feed: Feed,
    private readonly minGapMs = 100,
  ) {
    this.off = feed.subscribe('nodes', (change) => {
      if (change.refresh) this.reloadAll = true;
      for (const id of change.nodes ?? []) this.pending.add(id);
      this.schedule();
    });
    this.schedule();
  }

  /** React subscription (useSyncExternalStore). */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The current snapshot. */
  readonly get = (): Snapshot => this.snapshot;

  /** Rows on screen: their changes are fetched within `minGapMs`, the others every few seconds. */
  setVisible(ids: readonly string[]): void {
    this.visible = new Set(ids);
    if (ids.some((id) => this.pending.has(id))) this.schedule();
  }

  close(): void {
    this.off();
    if (this.timer !== undefined) window.clearTimeout(this.timer);
  }

  private urgent(): string[] {
    return [...this.pending].filter((id) => this.visible.has(id));
  }

  private schedule(): void {
    if (this.busy) return;
    let at: number;
    if (this.reloadAll || this.urgent().length > 0) at = this.last + this.minGapMs;
    else if (this.pending.size > 0)
      at = Math.max(this.last + this.minGapMs, this.lastBackground + BACKGROUND_MS);
    else return;
    // A flush already planned for later (the background one) is brought forward for rows on screen.
    if (this.timer !== undefined) {
      if (this.timerAt <= at) return;
      window.clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = window.setTimeout(
      () => {
        this.timer = undefined;
        void this.flush();
      },
      Math.max(0, at - Date.now()),
    );
  }

  private async flush(): Promise<void> {
    const now = Date.now();
    const background = this.reloadAll || now - this.lastBackground >= BACKGROUND_MS;
    const ids = background ? [...this.pending] : this.urgent();
    if (!this.reloadAll && ids.length === 0) return this.schedule();
    const all = this.reloadAll || ids.length > PATCH_LIMIT;
    this.busy = true;
    this.last = now;
    if (background) this.lastBackground = now;
    for (const id of ids) this.pending.delete(id);
    this.reloadAll = false;
    try {
      if (all) this.replace(await loadAll());
      else this.patch(await loadByIds(ids));
    } catch (e) {
      this.reloadAll = all;
      for (const id of ids) this.pending.add(id);
      this.publish({ ...this.snapshot, error: e instanceof Error ? e.message : String(e) });
    } finally {
      this.busy = false;
      this.schedule();
    }
  }

  private replace(nodes: Node[]): void {
    this.publish({ nodes: sorted(nodes), byId: new Map(nodes.map((n) => [n.nodeId, n])), loaded: true });
  }

  private patch(changed: Node[]): void {
    const byId = new Map(this.snapshot.byId);
    for (const n of changed) byId.set(n.nodeId, n);
    this.publish({ nodes: sorted([...byId.values()]), byId, loaded: true });
  }

  private publish(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    for (const l of this.listeners) l();
  }
}

function sorted(nodes: Node[]): Node[] {
  return nodes.sort((a, b) => a.hostname.localeCompare(b.hostname) || a.nodeId.localeCompare(b.nodeId));
}

function loadAll(): Promise<Node[]> {
  return getAll<Node>('/v1/nodes');
}

async function loadByIds(ids: string[]): Promise<Node[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += BY_IDS) chunks.push(ids.slice(i, i + BY_IDS));
  const pages = await Promise.all(
    chunks.map((chunk) =>
      get<{ items: Node[] }>(`/v1/nodes?limit=${BY_IDS}&${chunk.map((id) => `id=${id}`).join('&')}`),
    ),
  );
  return pages.flatMap((p) => p.items);
}

/** The live nodes of a store, for React components. */
export function useNodes(store: NodesStore): Snapshot {
  return useSyncExternalStore(store.subscribe, store.get);
}
