import type { SiteSummary } from '@hcn/contracts';
import type { GossipMember } from './gossip-envelope';

/** A member as this site holds it: what gossip said, when its heartbeat last moved on here, and who said so. */
export interface HeldMember extends GossipMember {
  /** Local time (ms) this site last saw the member's heartbeat grow: silence is measured from here. */
  readonly updatedAtMs: number;
  /** The site that passed the newest heartbeat on. */
  readonly via: string;
}

/** Timing and limits of the membership table. */
export interface MemberTableSettings {
  /** Hops a site's own entry may travel as a rumour. */
  readonly hops: number;
  /** A member whose heartbeat has not moved on for this long is aged out: no more passed on, nor gossiped to. */
  readonly ttlMs: number;
  /** How long a newly learned entry keeps being pushed on as a rumour. */
  readonly rumourTtlMs: number;
  /** After how long an aged-out member is forgotten altogether. */
  readonly forgetAfterMs: number;
}

/**
 * The gossip membership of one site (iarnet's discovery, SWIM-like without probes): heartbeats are versions each
 * site grows for itself, so a newer one always wins and a restarted site (whose clock moved on) is newer still.
 * Pure over the times given; the gossip service owns timers and the network.
 */
export class MemberTable {
  private readonly members = new Map<string, HeldMember>();
  private heartbeat = 0;

  constructor(
    private readonly selfId: string,
    private readonly settings: MemberTableSettings,
  ) {}

  /** This site's own entry with a heartbeat grown past the last one (and past `nowMs`: restarts stay newer). */
  beat(url: string, nowMs: number, summary: SiteSummary | null): GossipMember {
    this.heartbeat = Math.max(this.heartbeat + 1, nowMs);
    return { siteId: this.selfId, url, heartbeat: this.heartbeat, hops: this.settings.hops, summary };
  }

  /**
   * Takes what `via` said: an entry newer than the one held replaces it (one hop spent); this site's own entry and
   * entries `skip` names are ignored. Returns the entries whose heartbeat moved on.
   */
  merge(
    entries: readonly GossipMember[],
    via: string,
    nowMs: number,
    skip: (siteId: string) => boolean,
  ): HeldMember[] {
    const fresh: HeldMember[] = [];
    for (const entry of entries) {
      if (entry.siteId === this.selfId || skip(entry.siteId)) continue;
      const held = this.members.get(entry.siteId);
      if (held && entry.heartbeat <= held.heartbeat) continue;
      const member = { ...entry, hops: Math.max(0, entry.hops - 1), updatedAtMs: nowMs, via };
      this.members.set(entry.siteId, member);
      fresh.push(member);
    }
    return fresh;
  }

  /** Members heard from within the TTL (this site excluded). */
  live(nowMs: number): HeldMember[] {
    return [...this.members.values()].filter((m) => nowMs - m.updatedAtMs <= this.settings.ttlMs);
  }

  /** What a push carries: entries learned within the rumour TTL that have hops left. */
  rumours(nowMs: number): GossipMember[] {
    return this.live(nowMs)
      .filter((m) => m.hops > 0 && nowMs - m.updatedAtMs <= this.settings.rumourTtlMs)
      .map(entryOf);
  }

  /** What anti-entropy exchanges: every live entry. */
  fullState(nowMs: number): GossipMember[] {
    return this.live(nowMs).map(entryOf);
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
}

function entryOf(m: HeldMember): GossipMember {
  return { siteId: m.siteId, url: m.url, heartbeat: m.heartbeat, hops: m.hops, summary: m.summary };
}
