import { HcnError, SiteSummary } from '@hcn/contracts';
import { Logger } from '@nestjs/common';
import type { Clock } from '../../tokens';
import type { FederationConfig, PeerSite, SiteTls } from '../federation.config';
import { callSite, okBody } from '../site-client';
import type { SiteLiveness } from '../site-liveness';
import type { SummarySource } from '../site-link';
import {
  GossipEnvelope,
  GossipPayload,
  gossipEnvelopeSchema,
  openGossip,
  sealGossip,
} from './gossip-envelope';
import { GossipProtocol, Taken } from './gossip-protocol';

/** A changed summary is pushed on in this many x ceil(log10(members + 2)) rounds (memberlist's retransmit mult). */
const SUMMARY_PUSH_MULT = 3;

const logger = new Logger('gossip');

/** The gossip settings of a site. */
export type GossipSettings = NonNullable<FederationConfig['gossip']>;

/** A member as `GET /v1/federation/members` shows it. */
export interface MemberView {
  siteId: string;
  url: string;
  heartbeat: number;
  alive: boolean;
  via: string;
  lastHeardMsAgo: number;
  summary: SiteSummary | null;
}

/** What the gossip service needs from the rest of the hub. */
export interface GossipDeps {
  readonly siteId: string;
  /** Where other sites reach this one. */
  readonly url: () => string;
  readonly peers: readonly PeerSite[];
  readonly tls: SiteTls;
  readonly summaries: SummarySource;
  readonly summaryIntervalMs: number;
  readonly ttlMs: number;
  readonly liveness: SiteLiveness;
  readonly clock: Clock;
  readonly log?: (line: string) => void;
}

/**
 * Discovery without a centre (iarnet's gossip): every interval a site pushes its heartbeat, fresh heartbeats (TTL, hop
 * limit) and the rumours of changed summaries (a bounded number of rounds) to a few random live members; every
 * anti-entropy interval it swaps digests with one random member and each side gets only the summaries it lacks
 * (push-pull of deltas, `GossipProtocol`), so membership and summaries converge while a steady federation sends no
 * summary at all. This site's own summary is refreshed every summary interval and spread only when it changed
 * materially (`materiallyChanged`). Static peers seed it. Every message is signed with the federation's
 * shared secret and checked on arrival (never trust the network). Membership changes go to the log through site
 * liveness (SiteDiscovered, SiteWentOffline, SiteCameOnline); gossip messages themselves do not.
 */
export class GossipService {
  private readonly protocol: GossipProtocol;
  private timers: NodeJS.Timeout[] = [];
  private running = false;
  private summarisedAtMs: number | undefined;
  private merging: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: GossipSettings,
    private readonly deps: GossipDeps,
  ) {
    this.protocol = new GossipProtocol(
      deps.siteId,
      deps.url,
      {
        hops: settings.hops,
        ttlMs: deps.ttlMs,
        rumourTtlMs: settings.rumourTtlMs,
        forgetAfterMs: deps.ttlMs * 10,
        summaryPushMult: SUMMARY_PUSH_MULT,
      },
      (id) => deps.liveness.isDeregistered(id),
    );
  }

  /** Starts gossiping (a first push and sync at once). */
  start(): void {
    if (this.running) return;
    this.running = true;
    const every = (ms: number, round: () => Promise<void>) => {
      const timer = setInterval(() => void round().catch(() => undefined), ms);
      timer.unref();
      this.timers.push(timer);
      void round().catch(() => undefined);
    };
    every(this.settings.intervalMs, () => this.pushRound());
    every(this.settings.antiEntropyIntervalMs, () => this.syncRound());
  }

  /** Stops gossiping: no more rounds, and arriving messages are refused (the site is cut off, as in a partition). */
  async stop(): Promise<void> {
    this.running = false;
    this.timers.forEach((t) => clearInterval(t));
    this.timers = [];
    await this.merging;
  }

  /**
   * Takes a message from another site: a push is merged; a sync is merged and answered with this site's digest and
   * the summaries the other lacks.
   */
  async receive(envelope: GossipEnvelope): Promise<GossipEnvelope | { accepted: number }> {
    if (!this.running) throw new HcnError('FEDERATION.GOSSIP_UNAVAILABLE', 'This site is not gossiping now');
    const payload = openGossip(this.settings.secret, envelope, this.deps.clock(), this.settings.maxSkewMs);
    this.summarise();
    const taken = await this.merge((nowMs) => this.protocol.receive(payload, nowMs));
    return taken.send ? this.seal(taken.send) : { accepted: taken.fresh.length };
  }

  /** The members this site holds, live or aged out. */
  members(): MemberView[] {
    const now = this.deps.clock().getTime();
    return this.protocol.table
      .all()
      .map((m) => ({
        siteId: m.siteId,
        url: m.url,
        heartbeat: m.heartbeat,
        alive: now - m.updatedAtMs <= this.deps.ttlMs,
        via: m.via,
        lastHeardMsAgo: now - m.updatedAtMs,
        summary: m.summary,
      }))
      .sort((a, b) => (a.siteId < b.siteId ? -1 : 1));
  }

  private async pushRound(): Promise<void> {
    if (!this.running) return;
    const now = this.deps.clock().getTime();
    this.protocol.table.forget(now, (id) => this.deps.liveness.isDeregistered(id));
    this.summarise();
    const targets = this.pick(this.settings.fanout);
    if (!targets.length) return;
    const message = this.seal(this.protocol.push(now));
    await Promise.all(targets.map((url) => this.send(url, message)));
  }

  private async syncRound(): Promise<void> {
    if (!this.running) return;
    const [target] = this.pick(1);
    if (!target) return;
    this.summarise();
    const reply = await this.send(target, this.seal(this.protocol.sync(this.deps.clock().getTime())));
    const envelope = gossipEnvelopeSchema.safeParse(reply);
    if (!envelope.success || !this.running) return;
    const payload = openGossip(
      this.settings.secret,
      envelope.data,
      this.deps.clock(),
      this.settings.maxSkewMs,
    );
    if (payload.kind !== 'reply') return;
    const taken = await this.merge((nowMs) => this.protocol.settle(payload, nowMs));
    if (taken.send) await this.send(target, this.seal(taken.send));
  }

  private async send(url: string, message: GossipEnvelope): Promise<unknown> {
    try {
      const answer = await callSite(`${url}/v1/federation/gossip`, 'POST', message, {
        tls: this.deps.tls,
        timeoutMs: 5000,
      });
      return okBody<unknown>(answer, 'gossip');
    } catch {
      return undefined; // an unreachable member is aged out by silence, not by a failed call
    }
  }

  /** Up to `n` distinct addresses: live members and the static peers, chosen at random. */
  private pick(n: number): string[] {
    const now = this.deps.clock().getTime();
    const urls = new Set([
      ...this.protocol.table.live(now).map((m) => m.url),
      ...this.deps.peers.map((p) => p.url),
    ]);
    urls.delete(this.deps.url());
    const pool = [...urls];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, n);
  }

  /** Merges one message at a time; membership changes go to the log through liveness. */
  private merge(take: (nowMs: number) => Taken): Promise<Taken> {
    const run = this.merging.then(async () => {
      const now = this.deps.clock();
      const taken = take(now.getTime());
      for (const m of taken.fresh)
        await this.deps.liveness
          .heardMember(m.siteId, m.url, m.via, now)
          .catch((error: unknown) =>
            (this.deps.log ?? ((line: string) => logger.warn(line)))(
              `recording ${m.siteId} failed: ${(error as Error).message}`,
            ),
          );
      return taken;
    });
    this.merging = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Refreshes this site's summary every summary interval; gossip spreads it only when it changed materially. */
  private summarise(): void {
    const now = this.deps.clock().getTime();
    if (this.summarisedAtMs !== undefined && now - this.summarisedAtMs < this.deps.summaryIntervalMs) return;
    this.summarisedAtMs = now;
    this.protocol.publish(this.deps.summaries.next(), now);
  }

  private seal(payload: GossipPayload): GossipEnvelope {
    return sealGossip(this.settings.secret, payload, this.deps.clock());
  }
}
