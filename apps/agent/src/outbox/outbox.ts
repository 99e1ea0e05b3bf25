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
  private pending: OutboxEntry<T>[] = [];
  private nextSeq = 0;
  private sentSeq = -1;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.logPath = join(dir, 'outbox.jsonl');
    this.cursorPath = join(dir, 'outbox.sent');
    this.load();
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
    const fd = openSync(this.logPath, 'a', 0o600);
    try {
      appendFileSync(fd, `${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.nextSeq++;
    this.pending.push(entry);
    return entry;
  }

  /** The oldest unacknowledged reports, in order. */
  peek(max: number): OutboxEntry<T>[] {
    return this.pending.slice(0, max);
  }

  /** Records that every report up to `seq` was acknowledged; compacts the log when nothing is pending. */
  acknowledge(seq: number): void {
    this.pending = this.pending.filter((e) => e.seq > seq);
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
      if (entry.seq > this.sentSeq) this.pending.push(entry);
    }
  }
}

function writeAtomically(path: string, content: string): void {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  renameSync(temporary, path);
}
