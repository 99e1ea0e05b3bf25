import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outbox } from './outbox';

describe('agent outbox (on disk)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hcn-outbox-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps unacknowledged reports across a restart, in order, and continues the sequence', () => {
    const first = new Outbox<{ n: number }>(dir);
    [10, 11, 12, 13].forEach((n) => first.add(() => ({ n })));
    first.acknowledge(1);
    const reopened = new Outbox<{ n: number }>(dir);
    expect(reopened.peek(10).map((e) => [e.seq, e.body.n])).toEqual([
      [2, 12],
      [3, 13],
    ]);
    expect(reopened.add((seq) => ({ n: seq })).seq).toBe(4);
  });

  it('continues the sequence after everything was acknowledged and the log compacted', () => {
    const outbox = new Outbox<{ n: number }>(dir);
    outbox.add(() => ({ n: 1 }));
    outbox.add(() => ({ n: 2 }));
    outbox.acknowledge(1);
    expect(outbox.size).toBe(0);
    expect(new Outbox<{ n: number }>(dir).sequence).toBe(2);
  });

  it('ignores a torn last line left by a crash', () => {
    const outbox = new Outbox<{ n: number }>(dir);
    outbox.add(() => ({ n: 1 }));
    appendFileSync(join(dir, 'outbox.jsonl'), '{"seq":1,"bo');
    const reopened = new Outbox<{ n: number }>(dir);
    expect(reopened.peek(10).map((e) => e.body.n)).toEqual([1]);
    expect(reopened.sequence).toBe(1);
  });
});
