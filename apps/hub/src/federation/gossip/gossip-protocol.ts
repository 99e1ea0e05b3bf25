import type { SiteSummary } from '@hcn/contracts';
import type { GossipPayload } from './gossip-envelope';
import { HeldMember, MemberTable, MemberTableSettings } from './member-table';

/** What taking a message did: the members whose heartbeat moved on, and what to send back or on, if anything. */
export interface Taken {
  readonly fresh: HeldMember[];
  /** The answer to a sync (`reply`), or the delta (a second `reply`) of the summaries a reply asked for. */
  readonly send?: GossipPayload;
}

/**
 * The messages of one site's gossip, pure over the times given (the gossip service signs, sends and times them):
 * `push` carries heartbeats and the summary rumours; anti-entropy is a push-pull of deltas: `sync` is a digest
 * (member -> heartbeat, summary version), the `reply` the answering site's digest with the summaries the syncing site
 * lacks and in `want` the ones it has newer, which it then sends as a second `reply` (deltas repair: they are not
 * pushed on as rumours). A steady federation exchanges only heartbeats and
 * digests; a changed summary travels to every member (rumour rounds, then anti-entropy for any it missed).
 */
export class GossipProtocol {
  /** The membership this site holds. */
  readonly table: MemberTable;

  constructor(
    private readonly siteId: string,
    private readonly url: () => string,
    settings: MemberTableSettings,
    private readonly skip: (siteId: string) => boolean = () => false,
  ) {
    this.table = new MemberTable(siteId, settings);
  }

  /** Takes this site's latest summary (spread only when it changed materially); true when it is news. */
  publish(summary: SiteSummary, nowMs: number): boolean {
    return this.table.publish(summary, nowMs);
  }

  /** A push round's message. */
  push(nowMs: number): GossipPayload {
    return { from: this.siteId, kind: 'push', members: this.table.pushEntries(this.url(), nowMs) };
  }

  /** An anti-entropy round's opening: this site's digest. */
  sync(nowMs: number): GossipPayload {
    return { from: this.siteId, kind: 'sync', members: this.table.digest(this.url(), nowMs) };
  }

  /**
   * Takes a message from another site: a push (its summaries pushed on from here), a reply's delta (taken, not pushed
   * on: it repairs), or a sync, answered with this site's digest, the summaries the other lacks and a want.
   */
  receive(payload: GossipPayload, nowMs: number): Taken {
    const rumour = payload.kind === 'push';
    const fresh = this.table.merge(payload.members, payload.from, nowMs, this.skip, rumour);
    if (payload.kind !== 'sync') return { fresh };
    const want = this.table.wanted(payload.members, this.skip);
    const members = this.table.deltaFor(payload.members, this.url(), nowMs);
    return { fresh, send: { from: this.siteId, kind: 'reply', members, ...(want.length ? { want } : {}) } };
  }

  /** Takes the reply to this site's sync; what it asked for goes back as a delta (nothing when it asked for none). */
  settle(reply: GossipPayload, nowMs: number): Taken {
    const fresh = this.table.merge(reply.members, reply.from, nowMs, this.skip, false);
    const members = this.table.withSummaries(reply.want ?? [], this.url(), nowMs);
    return members.length ? { fresh, send: { from: this.siteId, kind: 'reply', members } } : { fresh };
  }
}
