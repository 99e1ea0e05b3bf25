import type { EventStore, SubscriptionHealth } from '@hcn/eventstore';
import type { ClusterSnapshot } from '@hcn/scheduling';
import type { DataSource } from 'typeorm';
import type { AgentCredentials } from '../auth/agent-credentials';
import type { Clock } from '../tokens';
import { DelegationStatusRelay } from './delegation/status-relay';
import type { FederationConfig } from './federation.config';
import { GossipService } from './gossip/gossip.service';
import { SiteLink, SummarySource } from './site-link';
import { SiteLiveness } from './site-liveness';
import { SiteRegistry } from './site-registry';
import { SiteSecrets } from './site-secrets';

/** What federation is built from. */
export interface FederationDeps {
  readonly store: EventStore;
  readonly clock: Clock;
  readonly credentials: AgentCredentials;
  /** This site's cluster fold, as the scheduler sees it (summaries are computed from it). */
  readonly snapshot: () => ClusterSnapshot;
  readonly health: SubscriptionHealth;
  /** Read models (checkpoints of federation's subscriptions). */
  readonly readModels: DataSource;
  readonly log?: (line: string) => void;
}

/**
 * A hub's federation parts: the site registry (parent side: join tokens, children, summaries), site liveness, the
 * link to a parent (child side) and gossip among members, each on only when configured.
 */
export class Federation {
  readonly registry: SiteRegistry;
  readonly liveness: SiteLiveness;
  readonly summaries: SummarySource;
  readonly link?: SiteLink;
  readonly gossip?: GossipService;
  /** Status of workloads delegated to this site, reported to the sites that delegated them. */
  readonly statusRelay?: DelegationStatusRelay;
  private listenUrl = '';
  private readonly secrets: SiteSecrets;

  constructor(
    readonly config: FederationConfig,
    deps: FederationDeps,
  ) {
    this.secrets = new SiteSecrets(deps.credentials);
    this.registry = new SiteRegistry(deps.store, config, deps.clock, this.secrets);
    this.liveness = new SiteLiveness(deps.store, this.registry, deps.clock, deps.health);
    this.summaries = new SummarySource(deps.snapshot, deps.clock);
    const { siteId, parent, gossip } = config;
    if (siteId && parent)
      this.link = new SiteLink({ ...config, siteId, parent }, this.summaries, () => this.siteUrl(), deps.log);
    if (siteId && gossip)
      this.gossip = new GossipService(gossip, {
        siteId,
        url: () => this.siteUrl(),
        peers: config.peers,
        tls: config.tls,
        summaries: this.summaries,
        summaryIntervalMs: config.summaryIntervalSeconds * 1000,
        ttlMs: config.siteTtlSeconds * 1000,
        liveness: this.liveness,
        clock: deps.clock,
        log: deps.log,
      });
    if (siteId)
      this.statusRelay = new DelegationStatusRelay({
        ...deps,
        tls: config.tls,
        siteId,
        delegatorOf: (site) => this.delegatorOf(site),
      });
  }

  /** Where a site that may delegate work here takes status reports, and the key the two share (this site's parent). */
  delegatorOf(siteId: string): { url: string; key: string } | undefined {
    const parent = this.link?.parentCredential();
    if (!parent || !this.config.parent || parent.parentSiteId !== siteId) return undefined;
    return { url: this.config.parent.url, key: parent.credential };
  }

  /**
   * The key this site shares with a site it delegates to: a registered child's site credential, derived again from
   * its registration (undefined for a site never registered, or deregistered).
   */
  async delegateKeyOf(siteId: string): Promise<string | undefined> {
    const state = await this.registry.state(siteId);
    const digest = state.registration?.joinTokenDigest;
    if (state.status === 'deregistered' || !digest) return undefined;
    return this.secrets.credentialFor(siteId, digest);
  }

  /** Where other sites reach this one: HCN_SITE_URL, else the hub's own listener. */
  siteUrl(): string {
    return this.config.siteUrl ?? this.listenUrl;
  }

  /** Starts liveness (always: a parent judges its children), the link and gossip once the hub listens at `url`. */
  start(url: string): void {
    this.listenUrl = url;
    this.liveness.start();
    this.link?.start();
    this.gossip?.start();
    this.statusRelay?.begin();
  }

  async stop(): Promise<void> {
    await this.statusRelay?.stop();
    await this.gossip?.stop();
    await this.link?.stop();
    await this.liveness.stop();
  }
}
