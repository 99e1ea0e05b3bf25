import { randomUUID } from 'node:crypto';
import type { QueueMeter } from '../port';

/** A QueueMeter under test, a Redis it can read, and a way to put lists there. */
export interface QueueMeterFixture {
  readonly meter: QueueMeter;
  /** URL of a Redis that answers. */
  readonly url: string;
  /** RPUSHes `items` to `key` on that Redis. */
  push(key: string, items: readonly string[]): Promise<void>;
  /** Stores a string (not a list) under `key`. */
  setString(key: string, value: string): Promise<void>;
  teardown(): Promise<void>;
}

/** The behaviour every QueueMeter adapter must show. */
export function queueMeterContract(makeFixture: () => Promise<QueueMeterFixture>): void {
  let f: QueueMeterFixture;
  const key = (name: string): string => `meter-${randomUUID().slice(0, 8)}:${name}`;
  beforeAll(async () => {
    f = await makeFixture();
  });
  afterAll(async () => f?.teardown());

  it('answers each list length by name, 0 for a missing key', async () => {
    const input = key('input');
    const output = key('output');
    const missing = key('missing');
    await f.push(input, ['a', 'b', 'c']);
    await f.push(output, ['x']);
    await expect(f.meter.lengths(f.url, [input, output, missing])).resolves.toEqual({
      [input]: 3,
      [output]: 1,
      [missing]: 0,
    });
  });

  it('answers {} for no names and counts a name given twice once', async () => {
    const q = key('q');
    await f.push(q, ['1', '2']);
    await expect(f.meter.lengths(f.url, [])).resolves.toEqual({});
    await expect(f.meter.lengths(f.url, [q, q])).resolves.toEqual({ [q]: 2 });
  });

  it('sees changes between calls on the same URL', async () => {
    const q = key('grows');
    expect((await f.meter.lengths(f.url, [q]))[q]).toBe(0);
    await f.push(
      q,
      Array.from({ length: 500 }, (_, i) => `item-${i}`),
    );
    expect((await f.meter.lengths(f.url, [q]))[q]).toBe(500);
  });

  it('treats the database index of the URL as a separate keyspace', async () => {
    const q = key('db');
    await f.push(q, ['only-in-db-0']);
    const db1 = `${f.url.replace(/\/\d*$/, '')}/1`;
    await expect(f.meter.lengths(db1, [q])).resolves.toEqual({ [q]: 0 });
  });

  it('rejects a key that is not a list with REDIS.NOT_A_LIST, and goes on working', async () => {
    const text = key('text');
    const list = key('list');
    await f.setString(text, 'hello');
    await f.push(list, ['a']);
    await expect(f.meter.lengths(f.url, [list, text])).rejects.toMatchObject({
      code: 'REDIS.NOT_A_LIST',
      details: expect.objectContaining({ queue: text }),
    });
    await expect(f.meter.lengths(f.url, [list])).resolves.toEqual({ [list]: 1 });
  });

  it('rejects a bad URL with REDIS.BAD_URL without connecting', async () => {
    await expect(f.meter.lengths('http://localhost:6379', ['q'])).rejects.toMatchObject({
      code: 'REDIS.BAD_URL',
    });
  });

  it('rejects an unreachable server with REDIS.UNREACHABLE quickly', async () => {
    const started = Date.now();
    await expect(f.meter.lengths('redis://127.0.0.1:1', ['q'])).rejects.toMatchObject({
      code: 'REDIS.UNREACHABLE',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('can be closed and used again', async () => {
    const q = key('reopen');
    await f.push(q, ['a']);
    await f.meter.close();
    await expect(f.meter.lengths(f.url, [q])).resolves.toEqual({ [q]: 1 });
  });
}
