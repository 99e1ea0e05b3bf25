import { MemberTable } from './member-table';

const settings = { hops: 3, ttlMs: 3000, rumourTtlMs: 1000, forgetAfterMs: 30_000 };
const entry = (siteId: string, heartbeat: number, hops = 3) => ({
  siteId,
  url: `http://${siteId}.example`,
  heartbeat,
  hops,
  summary: null,
});
const none = () => false;

describe('gossip member table', () => {
  it('grows its own heartbeat past the last one and past the clock', () => {
    const table = new MemberTable('a', settings);
    expect(table.beat('http://a', 1000, null).heartbeat).toBe(1000);
    expect(table.beat('http://a', 1000, null).heartbeat).toBe(1001);
    expect(table.beat('http://a', 5000, null)).toEqual({
      siteId: 'a',
      url: 'http://a',
      heartbeat: 5000,
      hops: 3,
      summary: null,
    });
  });

  it('takes only newer heartbeats, spends a hop, ignores itself and skipped sites', () => {
    const table = new MemberTable('a', settings);
    const fresh = table.merge([entry('b', 10), entry('a', 99), entry('x', 1)], 'b', 100, (id) => id === 'x');
    expect(fresh.map((m) => [m.siteId, m.hops, m.via])).toEqual([['b', 2, 'b']]);
    expect(table.merge([entry('b', 10), entry('b', 9)], 'c', 200, none)).toEqual([]);
    expect(
      table.merge([entry('b', 11, 0)], 'c', 300, none).map((m) => [m.hops, m.via, m.updatedAtMs]),
    ).toEqual([[0, 'c', 300]]);
  });

  it('pushes rumours within their TTL while hops are left; anti-entropy carries every live entry', () => {
    const table = new MemberTable('a', settings);
    table.merge([entry('b', 1), entry('c', 1, 1)], 'b', 0, none);
    expect(table.rumours(500).map((m) => m.siteId)).toEqual(['b']); // c arrived with its last hop
    expect(table.rumours(1500)).toEqual([]);
    expect(table.fullState(1500).map((m) => m.siteId)).toEqual(['b', 'c']);
  });

  it('ages a silent member out after the TTL, forgets it later, and takes it back when it beats again', () => {
    const table = new MemberTable('a', settings);
    table.merge([entry('b', 1)], 'b', 0, none);
    expect(table.live(3000).map((m) => m.siteId)).toEqual(['b']);
    expect(table.live(3001)).toEqual([]);
    expect(table.merge([entry('b', 1)], 'c', 3500, none)).toEqual([]); // an old heartbeat relayed: still out
    expect(table.merge([entry('b', 2)], 'b', 4000, none)).toHaveLength(1);
    expect(table.live(4000).map((m) => m.siteId)).toEqual(['b']);
    table.forget(40_000, none);
    expect(table.all()).toEqual([]);
  });
});
