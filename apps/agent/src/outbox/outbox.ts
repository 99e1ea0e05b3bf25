import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** Limits of an outbox. */
export interface OutboxLimits {
  /** Most bytes of unacknowledged reports kept; past it the oldest droppable ones go (default 64 MiB). */
  readonly maxBytes?: number;
  /** Reports that may be dropped when the outbox is full (heartbeats); others are always kept. */
  readonly droppable?: (body: unknown) => boolean;
  /** Called with how many reports were dropped and how many bytes are kept. */
  readonly onDrop?: (dropped: number, keptBytes: number) => void;
}

/** One stored report. */
export interface OutboxEntry<T> {
  readonly seq: number;
  readonly body: T;
}

/**
 * Durable local outbox of agent reports: every report is written (and fsynced) to an append-only JSON-lines
 * file before it is sent; a cursor file records the last sequence the bus acknowledged. While the hub or the
 * broker is unreachable reports accumulate here and are replayed in order when the link returns. The sequence
 * continues across restarts, so the hub can drop replays by (node, seq).
 */
export class Outbox<T> {
  private readonly logPath: string;
  private readonly cursorPath: string;
  private pending: Array<OutboxEntry<T> & { bytes: number }> = [];
  private pendingBytes = 0;
  private nextSeq = 0;
  private sentSeq = -1;
  /** Reports dropped because the outbox was full, since this process started. */
  dropped = 0;

  constructor(
    dir: string,
    private readonly limits: OutboxLimits = {},
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.logPath = join(dir, 'outbox.jsonl');
    this.cursorPath = join(dir, 'outbox.sent');
    this.load();
  }

  /** Bytes of the reports not yet acknowledged. */
  get bytes(): number {
    return this.pendingBytes;
  }

  /** Number of reports not yet acknowledged. */
  get size(): number {
    return this.pending.length;
  }

  /** Sequence the next report gets. */
  get sequence(): number {
    return this.nextSeq;
  }

  /** Stores a report durably; `build` receives its sequence number. */
  add(build: (seq: number) => T): OutboxEntry<T> {
    const entry = { seq: this.nextSeq, body: build(this.nextSeq) };
    const line = `${JSON.stringify(entry)}\n`;
    const fd = openSync(this.logPath, 'a', 0o600);
    try {
      appendFileSync(fd, line);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.nextSeq++;
    this.keep({ ...entry, bytes: Buffer.byteLength(line) });
    if (this.pendingBytes > (this.limits.maxBytes ?? 64 * 2 ** 20)) this.makeRoom();
    return entry;
  }

  /** The oldest unacknowledged reports, in order: at most `max`, and at most `maxBytes` (one at least). */
  peek(max: number, maxBytes = Infinity): OutboxEntry<T>[] {
    const out: OutboxEntry<T>[] = [];
    let bytes = 0;
    for (const { seq, body, bytes: size } of this.pending) {
      if (out.length >= max || (out.length > 0 && bytes + size > maxBytes)) break;
      out.push({ seq, body });
      bytes += size;
    }
    return out;
  }

  private keep(entry: OutboxEntry<T> & { bytes: number }): void {
    this.pending.push(entry);
    this.pendingBytes += entry.bytes;
  }

  /** Drops the oldest droppable reports down to 90 % of the cap and rewrites the log without them. */
  private makeRoom(): void {
    const target = (this.limits.maxBytes ?? 64 * 2 ** 20) * 0.9;
    const droppable = this.limits.droppable ?? (() => false);
    let over = this.pendingBytes - target;
    const before = this.pending.length;
    this.pending = this.pending.filter((e) => {
      if (over <= 0 || !droppable(e.body)) return true;
      over -= e.bytes;
      return false;
    });
    const dropped = before - this.pending.length;
    if (dropped === 0) return;
    this.pendingBytes = this.pending.reduce((sum, e) => sum + e.bytes, 0);
    this.dropped += dropped;
    writeAtomically(
      this.logPath,
      this.pending.map(({ seq, body }) => `${JSON.stringify({ seq, body })}\n`).join(''),
    );
    this.limits.onDrop?.(dropped, this.pendingBytes);
  }

  /** Records that every report up to `seq` was acknowledged; compacts the log when nothing is pending. */
  acknowledge(seq: number): void {
    this.pending = this.pending.filter((e) => e.seq > seq);
    this.pendingBytes = this.pending.reduce((sum, e) => sum + e.bytes, 0);
    this.sentSeq = Math.max(this.sentSeq, seq);
    writeAtomically(this.cursorPath, String(this.sentSeq));
    if (this.pending.length === 0) writeAtomically(this.logPath, '');
  }

  private load(): void {
    if (existsSync(this.cursorPath))
      this.sentSeq = Number(readFileSync(this.cursorPath, 'utf8').trim() || -1);
    this.nextSeq = this.sentSeq + 1;
    if (!existsSync(this.logPath)) return;
    for (const line of readFileSync(this.logPath, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let entry: OutboxEntry<T>;
      try {
        entry = JSON.parse(line) as OutboxEntry<T>;
      } catch {
        continue; // a torn last line after a crash: that report was never sent
      }
      this.nextSeq = Math.max(this.nextSeq, entry.seq + 1);
      if (entry.seq > this.sentSeq) this.keep({ ...entry, bytes: Buffer.byteLength(line) + 1 });
    }
  }
}

function writeAtomically(path: string, content: string): void {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  renameSync(temporary, path);
}
