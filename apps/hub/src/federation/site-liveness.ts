import { RecordedHcnEvent, inParallel } from '@hcn/contracts';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { Logger } from '@nestjs/common';
import type { Clock } from '../tokens';
import type { SiteRegistry } from './site-registry';

/** What liveness knows of one site. */
interface TrackedSite {
  status: 'online' | 'offline' | 'deregistered';
  /** Last time the site was heard from (a summary, a gossip heartbeat that moved on), ms since epoch. */
  lastSeenMs: number;
}

const logger = new Logger('site-liveness');

const LIVENESS_ACTOR = { kind: 'system' as const, id: 'site-liveness' };

/**
 * Site liveness, as node liveness: follows site-* and sitesummary-* in the log (every hub on the store sees the same
 * facts, also after a restart) plus what gossip hears in this process, and appends SiteWentOffline through the site
 * decider when a site is silent for longer than the site TTL. Sweeps only after catching up plus one TTL.
 */
export class SiteLiveness {
  private readonly sites = new Map<string, TrackedSite>();
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private sweepFromMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly store: EventStore,
    private readonly registry: SiteRegistry,
    private readonly clock: Clock,
    private readonly health: SubscriptionHealth,
  ) {}

  /** Starts following the log and sweeping. */
  start(): void {
    this.subscription = superviseSubscription(
      this.store,
      {
        filter: { kind: 'streamPrefix', prefixes: ['site-', 'sitesummary-'] },
        onEvent: (event) => this.apply(event),
        onCaughtUp: () => (this.sweepFromMs = this.clock().getTime() + this.ttlMs()),
        onError: (error) => logger.error(error.message),
        coalesceMs: 100,
      },
      { name: 'site-liveness', health: this.health, log: (line) => logger.warn(line) },
    );
    this.timer = setInterval(() => void this.sweep(), this.registry.config.livenessSweepMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.stop();
  }

  /** Notes that a site was heard from at `atMs` (a summary just recorded). */
  heard(siteId: string, atMs: number): void {
    const site = this.sites.get(siteId);
    if (site && atMs > site.lastSeenMs) site.lastSeenMs = atMs;
  }

  /** True when an operator deregistered the site (gossip then neither keeps nor passes it on). */
  isDeregistered(siteId: string): boolean {
    return this.sites.get(siteId)?.status === 'deregistered';
  }

  /**
   * Gossip heard a member's heartbeat move on: the first time (or back from offline) that is a membership change,
   * recorded through the site decider (SiteDiscovered / SiteCameOnline); otherwise only the time is noted.
   */
  async heardMember(siteId: string, url: string, via: string, at: Date): Promise<void> {
    const site = this.sites.get(siteId);
    this.heard(siteId, at.getTime());
    if (site?.status === 'online' || site?.status === 'deregistered') return;
    const command = { type: 'ObserveGossip' as const, siteId, url, via, seenAt: at.toISOString() };
    const appended = await this.registry.run(command, LIVENESS_ACTOR);
    if (appended.length > 0 || !site)
      this.sites.set(siteId, { status: 'online', lastSeenMs: Math.max(at.getTime(), site?.lastSeenMs ?? 0) });
  }

  private ttlMs(): number {
    return this.registry.config.siteTtlSeconds * 1000;
  }

  private apply(event: RecordedHcnEvent): void {
    const at = Date.parse(event.recordedAt);
    const seen = (siteId: string, status?: TrackedSite['status']) => {
      const site = this.sites.get(siteId) ?? { status: 'online', lastSeenMs: 0 };
      site.lastSeenMs = Math.max(site.lastSeenMs, at);
      if (status) site.status = status;
      this.sites.set(siteId, site);
    };
    switch (event.type) {
      case 'SiteRegistered':
      case 'SiteDiscovered':
      case 'SiteCameOnline':
        return seen(event.data.siteId, 'online');
      case 'SiteSummaryRecorded':
        if (this.sites.has(event.data.siteId)) seen(event.data.siteId);
        return;
      case 'SiteWentOffline':
        if (this.sites.has(event.data.siteId)) seen(event.data.siteId, 'offline');
        return;
      case 'SiteDeregistered':
        this.sites.set(event.data.siteId, { status: 'deregistered', lastSeenMs: at });
        return;
      default:
        return;
    }
  }

  private async sweep(): Promise<void> {
    const now = this.clock();
    if (this.sweeping || now.getTime() < this.sweepFromMs) return;
    this.sweeping = true;
    try {
      const silent = [...this.sites].filter(
        ([, s]) => s.status === 'online' && now.getTime() - s.lastSeenMs > this.ttlMs(),
      );
      await inParallel(silent, 8, ([siteId, site]) => this.markOffline(siteId, site, now));
    } catch (error) {
      logger.error(`sweep failed: ${(error as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  private async markOffline(siteId: string, site: TrackedSite, now: Date): Promise<void> {
    const command = {
      type: 'CheckLiveness' as const,
      siteId,
      now: now.toISOString(),
      ttlSeconds: this.registry.config.siteTtlSeconds,
      lastSeenAt: new Date(site.lastSeenMs).toISOString(),
    };
    const appended = await this.registry.run(command, LIVENESS_ACTOR);
    // no event: the log has it offline (or gone) already, e.g. another hub on this store was first
    if (appended.length > 0 || (await this.registry.state(siteId)).status !== 'online')
      site.status = 'offline';
  }
}
