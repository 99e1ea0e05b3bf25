import { AheadOfLog } from './ahead-of-log';

describe('AheadOfLog', () => {
  it('given work started early, when the log brings its event, then the log gets that work once', async () => {
    const ahead = new AheadOfLog<string>(10);
    let runs = 0;
    expect(ahead.start('e1', async () => `done ${++runs}`)).toBe(true);
    const claimed = ahead.claim('e1', true);
    await expect(claimed).resolves.toBe('done 1');
    expect(ahead.claim('e1', true)).toBeUndefined(); // handed over: a second read finds nothing
    expect(ahead.pending()).toEqual([]);
    expect(runs).toBe(1);
  });

  it('given the log brought an event first, when it is announced, then nothing starts', () => {
    const ahead = new AheadOfLog<void>(10);
    expect(ahead.claim('e1', true)).toBeUndefined();
    const work = jest.fn(async () => undefined);
    expect(ahead.start('e1', work)).toBe(false);
    expect(work).not.toHaveBeenCalled();
  });

  it('given an event of a kind never started early, when the log brings it, then it is not remembered', () => {
    const ahead = new AheadOfLog<void>(10);
    ahead.claim('e1', false);
    expect(ahead.start('e1', async () => undefined)).toBe(true);
  });

  it('given the limit of waiting starts, when another is announced, then it is left to the log', async () => {
    const ahead = new AheadOfLog<number>(2);
    expect(ahead.start('a', async () => 1)).toBe(true);
    expect(ahead.start('b', async () => 2)).toBe(true);
    expect(ahead.start('c', async () => 3)).toBe(false);
    await expect(Promise.all(ahead.pending())).resolves.toEqual([1, 2]);
    ahead.claim('a', true);
    expect(ahead.start('c', async () => 3)).toBe(true);
  });

  it('forgets the oldest events read first beyond its bound', () => {
    const ahead = new AheadOfLog<void>(10, 2);
    for (const id of ['x', 'y', 'z']) ahead.claim(id, true);
    expect(ahead.start('x', async () => undefined)).toBe(true); // forgotten: may start again
    expect(ahead.start('z', async () => undefined)).toBe(false);
  });
});
