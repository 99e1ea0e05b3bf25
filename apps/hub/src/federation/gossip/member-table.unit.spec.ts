import type { SiteSummary } from '@hcn/contracts';
import { MemberTable } from './member-table';

const settings = { hops: 3, ttlMs: 3000, rumourTtlMs: 1000, forgetAfterMs: 30_000, summaryPushMult: 2 };
const entry = (siteId: string, heartbeat: number, hops = 3, version = 0, summary?: SiteSummary) => ({
  siteId,
  url: `http://${siteId}.example`,
  heartbeat,
  hops,
  version,
  ...(summary ? { summary } : {}),
});
const none = () => false;
const summaryOf = (freeCpu: number, online = 10): SiteSummary => ({
  seq: freeCpu,
  generatedAt: new Date(freeCpu).toISOString(),
  domains: [{ domainId: 'root', online, offline: 0 }],
  nodes: { online, offline: 0 },
  cpuMillis: { total: 100_000, free: freeCpu },
  memoryBytes: { total: 2 ** 40, free: 2 ** 39 },
  accelerators: [],
  tags: [],
  regions: ['eu-west'],
});

describe('gossip member table', () => {
  it('grows its own heartbeat past the last one and past the clock', () => {
    const table = new MemberTable('a', settings);
    expect(table.beat('http://a', 1000).heartbeat).toBe(1000);
    expect(table.beat('http://a', 1000).heartbeat).toBe(1001);
    expect(table.beat('http://a', 5000)).toEqual({
      siteId: 'a',
      url: 'http://a',
      heartbeat: 5000,
      hops: 3,
      version: 0,
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

  it('pushes heartbeats within their TTL while hops are left; a digest carries every live member', () => {
    const table = new MemberTable('a', settings);
    table.merge([entry('b', 1), entry('c', 1, 1)], 'b', 0, none);
    expect(table.pushEntries('http://a', 500).map((m) => m.siteId)).toEqual(['a', 'b']); // c came with its last hop
    expect(table.pushEntries('http://a', 1500).map((m) => m.siteId)).toEqual(['a']);
    expect(table.digest('http://a', 1500).map((m) => m.siteId)).toEqual(['a', 'b', 'c']);
  });

  it('keeps heartbeat and summary apart: content goes by its version, liveness by the heartbeat', () => {
    const table = new MemberTable('a', settings);
    table.merge([entry('b', 10, 3, 5, summaryOf(1))], 'b', 0, none);
    table.merge([entry('b', 11, 3, 7)], 'b', 100, none); // a newer version announced, its summary not carried
    expect(table.all()[0]).toMatchObject({
      heartbeat: 11,
      version: 5,
      summary: summaryOf(1),
      updatedAtMs: 100,
    });
    expect(table.wanted([entry('b', 11, 3, 7)], none)).toEqual(['b']);
    const fresh = table.merge([entry('b', 9, 3, 7, summaryOf(2))], 'c', 200, none); // an old heartbeat, new content
    expect(fresh).toEqual([]);
    expect(table.all()[0]).toMatchObject({
      heartbeat: 11,
      version: 7,
      summary: summaryOf(2),
      updatedAtMs: 100,
    });
    expect(table.merge([entry('b', 12, 3, 6, summaryOf(3))], 'c', 300, none)[0].summary).toEqual(
      summaryOf(2),
    );
  });

  it('pushes a changed summary in a bounded number of rounds, then heartbeats only', () => {
    const table = new MemberTable('a', settings);
    expect(table.publish(summaryOf(50_000), 1000)).toBe(true);
    table.merge([entry('b', 1000, 3, 1000, summaryOf(1))], 'b', 1000, none);
    const carried = (at: number) =>
      table
        .pushEntries('http://a', at)
        .filter((e) => e.summary)
        .map((e) => e.siteId);
    // one live member: 2 x ceil(log10(1 + 2)) = 2 rounds (b's counted when it was learned, with no member yet: 2)
    expect([carried(1100), carried(1200), carried(1300)]).toEqual([['a', 'b'], ['a', 'b'], []]);
    expect(table.publish(summaryOf(50_500), 1400)).toBe(false); // free CPU moved by 0.5 % of the total
    expect(carried(1500)).toEqual([]);
    expect(table.publish(summaryOf(50_500, 11), 1600)).toBe(true); // a node came online
    expect(table.published().version).toBe(1600);
    expect(carried(1700)).toEqual(['a']);
  });

  it('answers a digest with the summaries the other lacks or holds older, and asks for the newer ones', () => {
    const table = new MemberTable('a', settings);
    table.publish(summaryOf(1), 500);
    table.merge([entry('b', 10, 3, 5, summaryOf(2)), entry('c', 10, 3, 5, summaryOf(3))], 'b', 1000, none);
    const theirs = [entry('a', 1, 3, 500), entry('b', 11, 3, 4), entry('c', 11, 3, 6), entry('d', 1, 3, 9)];
    const reply = table.deltaFor(theirs, 'http://a', 1000);
    expect(reply.map((e) => [e.siteId, e.summary !== undefined])).toEqual([
      ['a', false],
      ['b', true],
      ['c', false],
    ]);
    expect(table.wanted(theirs, none)).toEqual(['c', 'd']);
    expect(table.withSummaries(['a', 'c', 'x'], 'http://a', 1000).map((e) => e.summary?.seq)).toEqual([1, 3]);
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
