import { closeSync, existsSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';

const BLOCK = 64 * 1024;
const MAX_MARKS = 4096;

/** One line of a log, with the arrival sequence of the chunk that ended it (-1: older than the marks kept). */
export interface LogLine {
  text: string;
  seq: number;
}

/**
 * Append-only log file rotated by size (`<path>`, then `<path>.1` … `<path>.<keep>`), written synchronously.
 * Offsets count every byte ever appended, so reads by offset and the shipping cursor survive rotation; bytes
 * whose file was rotated away are skipped (the next offset handed out jumps past them).
 */
export class RotatingLog {
  private fd: number | null;
  private written = 0;
  private shipped = 0;
  /** segStarts[0]: first offset in the current file; segStarts[i]: first offset in `<path>.i`. */
  private segStarts: number[] = [0];
  private marks: Array<{ end: number; seq: number }> = [];
  private marksStart = 0;
  /** Bytes that could not be written (disk full, …). */
  dropped = 0;

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly keep: number,
  ) {
    if (existsSync(path) && statSync(path).size > 0) this.shift(); // an earlier run's output moves aside
    this.fd = openSync(path, 'w');
  }

  /** Appends a chunk that arrived with the given sequence; never throws. */
  append(chunk: Buffer, seq: number): void {
    let pos = 0;
    try {
      while (this.fd !== null && pos < chunk.length) {
        const room = this.maxBytes - (this.written - this.segStarts[0]);
        if (room <= 0) this.rotate();
        else pos += this.write(chunk, pos, Math.min(room, chunk.length - pos));
      }
    } catch {
      this.reopen();
    }
    this.dropped += chunk.length - pos;
    if (pos > 0) this.mark(seq);
  }

  /** Closes the current file; reads keep working. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Output not handed out before (at most maxBytes); a trailing partial UTF-8 character waits unless `final`. */
  readNew(maxBytes: number, final: boolean): { offset: number; text: string } | null {
    const from = Math.max(this.shipped, this.oldest());
    const to = Math.min(this.written, from + Math.max(1, maxBytes));
    if (to <= from) return null;
    let bytes = this.read(from, to);
    if (!(final && to === this.written)) bytes = bytes.subarray(0, completeUtf8Length(bytes));
    if (bytes.length === 0) return null;
    this.shipped = from + bytes.length;
    return { offset: from, text: bytes.toString('utf8') };
  }

  /** The last `n` lines still in the files, oldest first. */
  tail(n: number): LogLine[] {
    if (n <= 0) return [];
    const low = this.oldest();
    let from = this.written;
    const blocks: Buffer[] = [];
    let newlines = 0;
    while (from > low && newlines <= n) {
      const start = Math.max(low, from - BLOCK);
      const block = this.read(start, from);
      blocks.unshift(block);
      newlines += block.filter((b) => b === 10).length;
      from = start;
    }
    return this.splitLines(Buffer.concat(blocks), from, from > 0).slice(-n); // never a fragment first
  }

  private splitLines(buf: Buffer, base: number, firstIsPartial: boolean): LogLine[] {
    const lines: LogLine[] = [];
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(10, start);
      const end = nl < 0 ? buf.length : nl + 1;
      const text = buf.subarray(start, nl < 0 ? end : nl).toString('utf8');
      lines.push({ text, seq: this.seqAt(base + end - 1) });
      start = end;
    }
    return firstIsPartial ? lines.slice(1) : lines;
  }

  private read(from: number, to: number): Buffer {
    const parts: Buffer[] = [];
    for (let i = this.segStarts.length - 1; i >= 0; i--) {
      const start = this.segStarts[i];
      const end = i === 0 ? this.written : this.segStarts[i - 1];
      const a = Math.max(from, start);
      const b = Math.min(to, end);
      if (a < b) parts.push(readRange(this.fileOf(i), a - start, b - a));
    }
    return Buffer.concat(parts);
  }

  private oldest(): number {
    return this.segStarts[this.segStarts.length - 1];
  }

  private fileOf(i: number): string {
    return i === 0 ? this.path : `${this.path}.${i}`;
  }

  private write(chunk: Buffer, pos: number, len: number): number {
    const n = writeSync(this.fd as number, chunk, pos, len);
    this.written += n;
    return n;
  }

  private rotate(): void {
    this.close();
    this.shift();
    this.fd = openSync(this.path, 'w');
    this.segStarts = [this.written, ...this.segStarts].slice(0, this.keep + 1);
  }

  /** After a failed write or rotation: continue in a fresh file; older output is no longer readable by offset. */
  private reopen(): void {
    this.segStarts = [this.written];
    try {
      this.close();
      this.fd = openSync(this.path, 'w');
    } catch {
      this.fd = null;
    }
  }

  private shift(): void {
    if (this.keep <= 0) rmSync(this.path, { force: true });
    for (let i = this.keep; i >= 1; i--) {
      const src = this.fileOf(i - 1);
      if (existsSync(src)) renameSync(src, this.fileOf(i));
    }
  }

  private mark(seq: number): void {
    this.marks.push({ end: this.written, seq });
    if (this.marks.length <= 2 * MAX_MARKS) return;
    const cut = this.marks.length - MAX_MARKS;
    this.marksStart = this.marks[cut - 1].end;
    this.marks = this.marks.slice(cut);
  }

  /** Sequence of the chunk holding byte `p`. */
  private seqAt(p: number): number {
    if (p < this.marksStart) return -1;
    let lo = 0;
    let hi = this.marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.marks[mid].end > p) hi = mid;
      else lo = mid + 1;
    }
    return this.marks[lo]?.end > p ? this.marks[lo].seq : -1;
  }
}

function readRange(file: string, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, position + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence. */
export function completeUtf8Length(buf: Buffer): number {
  for (let i = buf.length - 1; i >= Math.max(0, buf.length - 4); i--) {
    const b = buf[i];
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return buf.length - i < need ? i : buf.length;
  }
  return buf.length;
}
