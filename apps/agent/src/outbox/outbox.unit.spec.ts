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

  it('batches by bytes: a batch stays under the limit, one report at least', () => {
    const outbox = new Outbox<{ text: string }>(dir);
    for (let i = 0; i < 10; i++) outbox.add(() => ({ text: 'x'.repeat(1000) }));
    expect(outbox.peek(500, 3500)).toHaveLength(3);
    expect(outbox.peek(2, 1_000_000)).toHaveLength(2);
    expect(outbox.peek(500, 10)).toHaveLength(1);
  });

  it('when full drops the oldest heartbeats, never allocation reports, says so, and keeps it on disk', () => {
    const drops: Array<[number, number]> = [];
    const limits = {
      maxBytes: 20_000,
      droppable: (body: unknown) => (body as { kind: string }).kind === 'heartbeat',
      onDrop: (n: number, kept: number) => void drops.push([n, kept]),
    };
    const outbox = new Outbox<{ kind: string; i: number; pad: string }>(dir, limits);
    const pad = 'p'.repeat(900);
    for (let i = 0; i < 40; i++)
      outbox.add(() => ({ kind: i % 4 === 0 ? 'allocation' : 'heartbeat', i, pad }));
    expect(outbox.bytes).toBeLessThanOrEqual(20_000);
    expect(outbox.dropped).toBeGreaterThan(0);
    expect(drops.length).toBeGreaterThan(0);
    const kept = outbox.peek(1000).map((e) => e.body);
    expect(kept.filter((b) => b.kind === 'allocation').map((b) => b.i)).toEqual([
      0, 4, 8, 12, 16, 20, 24, 28, 32, 36,
    ]);
    expect(kept.at(-1)?.i).toBe(39); // the newest heartbeats stay
    expect(new Outbox<{ kind: string; i: number }>(dir, limits).peek(1000).map((e) => e.body.i)).toEqual(
      kept.map((b) => b.i),
    );
  });
});
