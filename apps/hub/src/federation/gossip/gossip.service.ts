import { HcnError, SiteSummary } from '@hcn/contracts';
import { Logger } from '@nestjs/common';
import type { Clock } from '../../tokens';
import type { FederationConfig, PeerSite, SiteTls } from '../federation.config';
import { callSite, okBody } from '../site-client';
import type { SiteLiveness } from '../site-liveness';
import type { SummarySource } from '../site-link';
import {
  GossipEnvelope,
  GossipMember,
  GossipPayload,
  gossipEnvelopeSchema,
  openGossip,
  sealGossip,
} from './gossip-envelope';
import { MemberTable } from './member-table';

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
 * Discovery without a centre (iarnet's gossip): every interval a site pushes its own entry and fresh rumours (TTL,
 * hop limit) to a few random live members; every anti-entropy interval it swaps its full member list with one random
 * member (push-pull), so membership converges. Static peers seed it. Every message is signed with the federation's
 * shared secret and checked on arrival (never trust the network). Membership changes go to the log through site
 * liveness (SiteDiscovered, SiteWentOffline, SiteCameOnline); gossip messages themselves do not.
 */
export class GossipService {
  private readonly table: MemberTable;
  private timers: NodeJS.Timeout[] = [];
  private running = false;
  private own: { summary: SiteSummary; atMs: number } | undefined;
  private merging: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: GossipSettings,
    private readonly deps: GossipDeps,
  ) {
    this.table = new MemberTable(deps.siteId, {
      hops: settings.hops,
      ttlMs: deps.ttlMs,
      rumourTtlMs: settings.rumourTtlMs,
      forgetAfterMs: deps.ttlMs * 10,
    });
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

  /** Takes a message from another site: a push is merged; a sync is merged and answered with this site's state. */
  async receive(envelope: GossipEnvelope): Promise<GossipEnvelope | { accepted: number }> {
    if (!this.running) throw new HcnError('FEDERATION.GOSSIP_UNAVAILABLE', 'This site is not gossiping now');
    const payload = openGossip(this.settings.secret, envelope, this.deps.clock(), this.settings.maxSkewMs);
    const fresh = await this.merge(payload);
    if (payload.kind === 'push') return { accepted: fresh };
    return this.seal({ from: this.deps.siteId, kind: 'sync', members: this.fullState() });
  }

  /** The members this site holds, live or aged out. */
  members(): MemberView[] {
    const now = this.deps.clock().getTime();
    return this.table
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
    this.table.forget(now, (id) => this.deps.liveness.isDeregistered(id));
    const members = [this.self(), ...this.table.rumours(now)];
    const targets = this.pick(this.settings.fanout);
    const message = this.seal({ from: this.deps.siteId, kind: 'push', members });
    await Promise.all(targets.map((url) => this.send(url, message)));
  }

  private async syncRound(): Promise<void> {
    if (!this.running) return;
    const [target] = this.pick(1);
    if (!target) return;
    const reply = await this.send(
      target,
      this.seal({ from: this.deps.siteId, kind: 'sync', members: this.fullState() }),
    );
    const envelope = gossipEnvelopeSchema.safeParse(reply);
    if (!envelope.success || !this.running) return;
    const now = this.deps.clock();
    await this.merge(openGossip(this.settings.secret, envelope.data, now, this.settings.maxSkewMs));
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
    const urls = new Set([...this.table.live(now).map((m) => m.url), ...this.deps.peers.map((p) => p.url)]);
    urls.delete(this.deps.url());
    const pool = [...urls];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, n);
  }

  /** Merges one message at a time; membership changes go to the log through liveness. */
  private merge(payload: GossipPayload): Promise<number> {
    const run = this.merging.then(async () => {
      const now = this.deps.clock();
      const fresh = this.table.merge(payload.members, payload.from, now.getTime(), (id) =>
        this.deps.liveness.isDeregistered(id),
      );
      for (const m of fresh)
        await this.deps.liveness
          .heardMember(m.siteId, m.url, m.via, now)
          .catch((error: unknown) =>
            (this.deps.log ?? ((line: string) => logger.warn(line)))(
              `recording ${m.siteId} failed: ${(error as Error).message}`,
            ),
          );
      return fresh.length;
    });
    this.merging = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private self(): GossipMember {
    const now = this.deps.clock().getTime();
    if (!this.own || now - this.own.atMs >= this.deps.summaryIntervalMs)
      this.own = { summary: this.deps.summaries.next(), atMs: now };
    return this.table.beat(this.deps.url(), now, this.own.summary);
  }

  private fullState(): GossipMember[] {
    return [this.self(), ...this.table.fullState(this.deps.clock().getTime())];
  }

  private seal(payload: GossipPayload): GossipEnvelope {
    return sealGossip(this.settings.secret, payload, this.deps.clock());
  }
}
