import { Undelivered } from './undelivered';

describe('undelivered orders, tried again in rounds', () => {
  it('forgets an order once delivered, keeps one that fails, and a newer order under a key replaces the older', async () => {
    const delivered: string[] = [];
    const failing = new Set(['b']);
    const queue = new Undelivered<string>(async (order) => {
      if (failing.has(order)) throw new Error('unreachable');
      delivered.push(order);
    });
    queue.add('1', 'a');
    queue.add('2', 'b');
    queue.add('1', 'a2');
    await queue.retry();
    expect(delivered).toEqual(['a2']);
    expect(queue.size).toBe(1);
    await queue.retry();
    expect(queue.size).toBe(1); // still failing
    failing.clear();
    await queue.retry();
    expect(delivered).toEqual(['a2', 'b']);
    expect(queue.size).toBe(0);
  });

  it('joins a round in progress and keeps at most its limit, counting what it drops', async () => {
    let release: () => void = () => undefined;
    let calls = 0;
    const queue = new Undelivered<string>(async () => {
      calls += 1;
      await new Promise<void>((resolve) => (release = resolve));
    }, 2);
    queue.add('1', 'a');
    queue.add('2', 'b');
    queue.add('3', 'c');
    expect([queue.size, queue.dropped]).toEqual([2, 1]);
    const first = queue.retry();
    const second = queue.retry();
    expect(second).toBe(first);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await first;
    expect([calls, queue.size]).toEqual([2, 0]);
  });
});
