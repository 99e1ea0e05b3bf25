import type { SiteSummary } from '@hcn/contracts';
import type { GossipPayload } from './gossip-envelope';
import { GossipProtocol } from './gossip-protocol';

const settings = { hops: 3, ttlMs: 5000, rumourTtlMs: 2000, forgetAfterMs: 50_000, summaryPushMult: 3 };
const INTERVAL_MS = 1000;
const SYNC_EVERY = 5; // anti-entropy every 5 push rounds, as the defaults (1 s, 5 s)
const FANOUT = 3;

/** A summary of `online` nodes; `tick` moves only what gossip must not count as news (number, time, a little CPU). */
const summaryOf = (online: number, tick: number): SiteSummary => ({
  seq: tick,
  generatedAt: new Date(tick * INTERVAL_MS).toISOString(),
  domains: [{ domainId: 'root', online, offline: 0 }],
  nodes: { online, offline: 0 },
  cpuMillis: { total: 4_000_000, free: 2_000_000 + (tick % 7) * 100 },
  memoryBytes: { total: 2 ** 42, free: 2 ** 41 },
  accelerators: [{ vendor: 'nvidia', model: 'h100', total: 8, free: 4 }],
  tags: ['runtime:process'],
  regions: ['eu-west'],
});

/** Messages sent, and how many summaries they carried. */
interface Traffic {
  messages: number;
  summaries: number;
}

/**
 * Six sites gossiping in memory with the real protocol, in push rounds of a virtual second: each site knows only
 * site-0 to begin with (site-0 knows site-1), pushes to FANOUT random members and syncs with one every SYNC_EVERY
 * rounds. A seeded random keeps the run the same every time.
 */
class Fleet {
  readonly ids = ['site-0', 'site-1', 'site-2', 'site-3', 'site-4', 'site-5'];
  readonly online = new Map(this.ids.map((id) => [id, 100]));
  readonly cutOff = new Set<string>();
  private readonly sites: Map<string, GossipProtocol>;
  private tick = 0;
  private seed = 42;

  constructor(overrides: Partial<typeof settings> = {}) {
    const of = (id: string) =>
      new GossipProtocol(id, () => `http://${id}.example`, { ...settings, ...overrides });
    this.sites = new Map(this.ids.map((id) => [id, of(id)]));
  }

  /** Runs `rounds` push rounds; returns the traffic they made. */
  run(rounds: number): Traffic {
    const traffic = { messages: 0, summaries: 0 };
    for (let r = 0; r < rounds; r++) {
      this.tick++;
      const nowMs = this.tick * INTERVAL_MS;
      for (const [id, site] of this.sites) {
        site.publish(summaryOf(this.online.get(id)!, this.tick), nowMs);
        const message = site.push(nowMs);
        for (const to of this.targets(id, FANOUT, nowMs)) this.deliver(message, to, nowMs, traffic);
        if (this.tick % SYNC_EVERY !== this.ids.indexOf(id) % SYNC_EVERY) continue;
        const [to] = this.targets(id, 1, nowMs);
        const reply = to && this.deliver(site.sync(nowMs), to, nowMs, traffic);
        if (!reply) continue;
        this.count(reply, traffic);
        const delta = site.settle(reply, nowMs).send;
        if (delta) this.deliver(delta, to, nowMs, traffic);
      }
    }
    return traffic;
  }

  /** The summary version each site holds of `about` (its own published one for itself). */
  versionsOf(about: string): number[] {
    return this.ids.map((id) => {
      const table = this.sites.get(id)!.table;
      if (id === about) return table.published().version;
      return table.all().find((m) => m.siteId === about)?.version ?? -1;
    });
  }

  /** The node count each other site holds in `about`'s summary. */
  onlineSeenOf(about: string): Array<number | undefined> {
    return this.ids
      .filter((id) => id !== about)
      .map(
        (id) =>
          this.sites
            .get(id)!
            .table.all()
            .find((m) => m.siteId === about)?.summary?.nodes.online,
      );
  }

  /** Live members each site holds. */
  liveCounts(): number[] {
    return this.ids.map((id) => this.sites.get(id)!.table.live(this.tick * INTERVAL_MS).length);
  }

  /** Posts a message to a site (as the gossip endpoint takes it); a sync's answer comes back. */
  private deliver(message: GossipPayload, to: string, nowMs: number, traffic: Traffic) {
    if (this.cutOff.has(to) || this.cutOff.has(message.from)) return undefined;
    this.count(message, traffic);
    return this.sites.get(to)!.receive(message, nowMs).send;
  }

  private count(message: GossipPayload, traffic: Traffic): void {
    traffic.messages++;
    traffic.summaries += message.members.filter((m) => m.summary).length;
  }

  private targets(id: string, n: number, nowMs: number): string[] {
    const seeds = id === 'site-0' ? ['site-1'] : ['site-0'];
    const live = this.sites
      .get(id)!
      .table.live(nowMs)
      .map((m) => m.siteId);
    const pool = [...new Set([...live, ...seeds])];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, n);
  }

  private random(): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2 ** 31;
    return this.seed / 2 ** 31;
  }
}

describe('gossip protocol: traffic follows change', () => {
  it('sends no summary once a steady fleet has converged, only heartbeats and digests', () => {
    const fleet = new Fleet();
    const converging = fleet.run(20);
    expect(fleet.liveCounts()).toEqual([5, 5, 5, 5, 5, 5]);
    for (const id of fleet.ids) expect(new Set(fleet.versionsOf(id)).size).toBe(1);
    expect(converging.summaries).toBeGreaterThan(0);
    const steady = fleet.run(60); // a virtual minute: free CPU, seq and time keep moving, nothing material
    expect(steady.messages).toBeGreaterThan(60 * 6 * FANOUT * 0.9);
    expect(steady.summaries).toBe(0);
    expect(fleet.liveCounts()).toEqual([5, 5, 5, 5, 5, 5]);
  });

  it('spreads a changed summary to every member, then stops sending it', () => {
    const fleet = new Fleet();
    fleet.run(20);
    fleet.online.set('site-3', 99); // a node of site-3 went offline
    const spreading = fleet.run(5);
    expect(fleet.onlineSeenOf('site-3')).toEqual([99, 99, 99, 99, 99]);
    expect(new Set(fleet.versionsOf('site-3')).size).toBe(1);
    // bounded: each site pushes it in 3 x ceil(log10(5 + 2)) = 3 rounds to FANOUT members, plus anti-entropy deltas
    expect(spreading.summaries).toBeLessThanOrEqual(6 * 3 * FANOUT + 10);
    expect(fleet.run(30).summaries).toBe(0);
  });

  it('gets a change a member missed to it by anti-entropy (digest, then only the missing summary)', () => {
    const fleet = new Fleet({ ttlMs: 30_000 });
    fleet.run(20);
    fleet.cutOff.add('site-5'); // hears nothing while the rumour runs and dies out (within the TTL: not aged out)
    fleet.online.set('site-2', 120);
    fleet.run(10);
    expect(fleet.onlineSeenOf('site-2')).toEqual([120, 120, 120, 120, 100]);
    expect(fleet.run(1).summaries).toBe(0); // the rumour is over
    fleet.cutOff.delete('site-5');
    const repairing = fleet.run(2 * SYNC_EVERY);
    expect(fleet.onlineSeenOf('site-2')).toEqual([120, 120, 120, 120, 120]);
    expect(repairing.summaries).toBe(1); // site-2's new summary, once, to site-5 alone
    expect(fleet.liveCounts()).toEqual([5, 5, 5, 5, 5, 5]);
  });
});
