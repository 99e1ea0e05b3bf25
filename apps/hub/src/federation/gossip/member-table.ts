import type { SiteSummary } from '@hcn/contracts';
import type { GossipMember } from './gossip-envelope';
import { materiallyChanged } from './summary-change';

/** A member as this site holds it: what gossip said, when its heartbeat last moved on here, and who said so. */
export interface HeldMember {
  readonly siteId: string;
  readonly url: string;
  readonly heartbeat: number;
  readonly hops: number;
  /** Version of the summary held (0: none yet); a member may be known to have a newer one not yet received. */
  readonly version: number;
  readonly summary: SiteSummary | null;
  /** Local time (ms) this site last saw the member's heartbeat grow: silence is measured from here. */
  readonly updatedAtMs: number;
  /** The site that passed the newest heartbeat on. */
  readonly via: string;
  /** Push rounds that still carry this member's summary (a rumour of its change); 0: it travels no more. */
  readonly summaryPushesLeft: number;
}

/** Timing and limits of the membership table. */
export interface MemberTableSettings {
  /** Hops a site's own heartbeat may travel as a rumour. */
  readonly hops: number;
  /** A member whose heartbeat has not moved on for this long is aged out: no more passed on, nor gossiped to. */
  readonly ttlMs: number;
  /** How long a newly learned heartbeat keeps being pushed on as a rumour. */
  readonly rumourTtlMs: number;
  /** After how long an aged-out member is forgotten altogether. */
  readonly forgetAfterMs: number;
  /** A changed summary is pushed on in this many x ceil(log10(members + 2)) rounds, then no more (memberlist's). */
  readonly summaryPushMult: number;
}

/**
 * The gossip membership of one site (iarnet's discovery, heartbeat gossip in the style of SWIM/memberlist without
 * probes). Liveness and content are apart: a heartbeat is a counter each site grows for itself every round (a newer
 * one always wins; a restarted site's, grown past its clock, is newer still); a summary has its own version, grown
 * only when the site's summary changes materially. Heartbeats travel in every push; a summary travels only as a
 * rumour of its change (a bounded number of rounds) or to a member whose digest shows it lacks it. Pure over the
 * times given; the gossip service owns timers and the network.
 */
export class MemberTable {
  private readonly members = new Map<string, HeldMember>();
  private heartbeat = 0;
  private own: { version: number; summary: SiteSummary | null; pushesLeft: number } = {
    version: 0,
    summary: null,
    pushesLeft: 0,
  };

  constructor(
    private readonly selfId: string,
    private readonly settings: MemberTableSettings,
  ) {}

  /**
   * Takes this site's latest summary: when it changed materially from the one last spread, it becomes the spread one
   * under a new version (grown past the last and past `nowMs`, so a restart's is newer) and a rumour. True if so.
   */
  publish(summary: SiteSummary, nowMs: number): boolean {
    if (!materiallyChanged(this.own.summary, summary)) return false;
    this.own = {
      version: Math.max(this.own.version + 1, nowMs),
      summary,
      pushesLeft: this.pushesFor(nowMs),
    };
    return true;
  }

  /** The summary this site spreads, and its version. */
  published(): { version: number; summary: SiteSummary | null } {
    return { version: this.own.version, summary: this.own.summary };
  }

  /** This site's own entry, its heartbeat grown past the last one (and past `nowMs`), without its summary. */
  beat(url: string, nowMs: number): GossipMember {
    this.heartbeat = Math.max(this.heartbeat + 1, nowMs);
    return {
      siteId: this.selfId,
      url,
      heartbeat: this.heartbeat,
      hops: this.settings.hops,
      version: this.own.version,
    };
  }

  /**
   * What a push carries: this site's heartbeat, the heartbeats learned within the rumour TTL that have hops left, and
   * the summaries still rumoured (each push spends one of their rounds).
   */
  pushEntries(url: string, nowMs: number): GossipMember[] {
    const self: GossipMember = this.beat(url, nowMs);
    const { summary, pushesLeft } = this.own;
    if (pushesLeft > 0 && summary) {
      this.own = { ...this.own, pushesLeft: pushesLeft - 1 };
      self.summary = summary;
    }
    const entries = [self];
    for (const m of this.live(nowMs)) {
      const beating = m.hops > 0 && nowMs - m.updatedAtMs <= this.settings.rumourTtlMs;
      const rumoured = m.summaryPushesLeft > 0 && m.summary !== null;
      if (!beating && !rumoured) continue;
      if (rumoured) this.members.set(m.siteId, { ...m, summaryPushesLeft: m.summaryPushesLeft - 1 });
      entries.push(rumoured ? { ...entryOf(m), summary: m.summary! } : entryOf(m));
    }
    return entries;
  }

  /** What anti-entropy opens with: this site's heartbeat and every live member, versions only (a digest). */
  digest(url: string, nowMs: number): GossipMember[] {
    return [this.beat(url, nowMs), ...this.live(nowMs).map(entryOf)];
  }

  /**
   * The answer to another site's digest: this site's own digest, with the summaries of the members the other lacks or
   * holds at an older version attached.
   */
  deltaFor(theirs: readonly GossipMember[], url: string, nowMs: number): GossipMember[] {
    const known = new Map(theirs.map((e) => [e.siteId, e.version]));
    return this.digest(url, nowMs).map((entry) => {
      const summary = this.summaryOf(entry.siteId);
      return summary && entry.version > (known.get(entry.siteId) ?? 0) ? { ...entry, summary } : entry;
    });
  }

  /** The members of another site's digest whose summary is newer there than here (this site wants them). */
  wanted(theirs: readonly GossipMember[], skip: (siteId: string) => boolean): string[] {
    return theirs
      .filter((e) => e.siteId !== this.selfId && !skip(e.siteId))
      .filter((e) => e.version > (this.members.get(e.siteId)?.version ?? 0))
      .map((e) => e.siteId);
  }

  /** The entries, summaries attached, of the members named (this site's own included) that this site holds. */
  withSummaries(siteIds: readonly string[], url: string, nowMs: number): GossipMember[] {
    const ids = new Set(siteIds);
    return this.digest(url, nowMs)
      .filter((e) => ids.has(e.siteId) && this.summaryOf(e.siteId))
      .map((e) => ({ ...e, summary: this.summaryOf(e.siteId)! }));
  }

  /**
   * Takes what `via` said, heartbeat and summary apart: a newer heartbeat replaces the one held (one hop spent, the
   * member heard now); a summary under a newer version replaces the one held and, when it came as a rumour, is pushed
   * on from here (a repair by anti-entropy is not). This site's own entry and entries `skip` names are ignored.
   * Returns the members whose heartbeat moved on.
   */
  merge(
    entries: readonly GossipMember[],
    via: string,
    nowMs: number,
    skip: (siteId: string) => boolean,
    rumour = true,
  ): HeldMember[] {
    const fresh: HeldMember[] = [];
    for (const entry of entries) {
      if (entry.siteId === this.selfId || skip(entry.siteId)) continue;
      const held = this.members.get(entry.siteId);
      const beat = !held || entry.heartbeat > held.heartbeat;
      const content = entry.summary !== undefined && entry.version > (held?.version ?? 0);
      if (!beat && !content) continue;
      const heard = beat
        ? {
            url: entry.url,
            heartbeat: entry.heartbeat,
            hops: Math.max(0, entry.hops - 1),
            updatedAtMs: nowMs,
            via,
          }
        : held!;
      const summary = content
        ? {
            version: entry.version,
            summary: entry.summary!,
            summaryPushesLeft: rumour ? this.pushesFor(nowMs) : 0,
          }
        : {
            version: held?.version ?? 0,
            summary: held?.summary ?? null,
            summaryPushesLeft: held?.summaryPushesLeft ?? 0,
          };
      const member: HeldMember = { siteId: entry.siteId, ...pick(heard), ...summary };
      this.members.set(entry.siteId, member);
      if (beat) fresh.push(member);
    }
    return fresh;
  }

  /** Members heard from within the TTL (this site excluded). */
  live(nowMs: number): HeldMember[] {
    return [...this.members.values()].filter((m) => nowMs - m.updatedAtMs <= this.settings.ttlMs);
  }

  /** Drops members aged out for longer than `forgetAfterMs`, and those `drop` names (deregistered). */
  forget(nowMs: number, drop: (siteId: string) => boolean): void {
    for (const [siteId, m] of this.members)
      if (drop(siteId) || nowMs - m.updatedAtMs > this.settings.forgetAfterMs) this.members.delete(siteId);
  }

  /** Every member held, live or aged out. */
  all(): HeldMember[] {
    return [...this.members.values()];
  }

  private summaryOf(siteId: string): SiteSummary | null {
    return siteId === this.selfId ? this.own.summary : (this.members.get(siteId)?.summary ?? null);
  }

  private pushesFor(nowMs: number): number {
    return this.settings.summaryPushMult * Math.ceil(Math.log10(this.live(nowMs).length + 2));
  }
}

function pick(h: Pick<HeldMember, 'url' | 'heartbeat' | 'hops' | 'updatedAtMs' | 'via'>) {
  return { url: h.url, heartbeat: h.heartbeat, hops: h.hops, updatedAtMs: h.updatedAtMs, via: h.via };
}

function entryOf(m: HeldMember): GossipMember {
  return { siteId: m.siteId, url: m.url, heartbeat: m.heartbeat, hops: m.hops, version: m.version };
}
