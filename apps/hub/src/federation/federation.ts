import type { SiteRelation } from '@hcn/contracts';
import type { EventStore, SubscriptionHealth } from '@hcn/eventstore';
import type { ClusterSnapshot } from '@hcn/scheduling';
import type { DataSource } from 'typeorm';
import type { AgentCredentials } from '../auth/agent-credentials';
import type { Clock } from '../tokens';
import { DelegationControls } from './delegation/delegation-controls';
import { SitePartitions } from './delegation/site-partitions';
import { DelegationStatusInbox } from './delegation/status-inbox';
import { DelegationSender, DelegationTarget } from './delegation/parent-delegations';
import { DelegationStatusRelay } from './delegation/status-relay';
import { DelegationStopRelay } from './delegation/stop-relay';
import type { DelegationEnvelope } from './delegation/delegation-envelope';
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
  /** Delegations this site hands to its children and peers: sent, answered or timed out (delegating side). */
  readonly delegations?: DelegationSender;
  /** Status reports of this site's delegations, recorded on its workloads. */
  readonly statusInbox: DelegationStatusInbox;
  /** Partitions of sites this one delegates to (offline: unknown or fall back; back: reconciled). */
  readonly partitions?: SitePartitions;
  /** Requests to the sites running this site's delegations: status, stop, cancel, output. */
  readonly controls?: DelegationControls;
  /** Stops and cancels of this site's delegations, forwarded to the sites running them. */
  readonly stopRelay?: DelegationStopRelay;
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
    this.statusInbox = new DelegationStatusInbox((site) => this.delegateKeyOf(site), deps.store, deps.clock);
    if (siteId) {
      this.statusRelay = new DelegationStatusRelay({
        ...deps,
        tls: config.tls,
        siteId,
        delegatorOf: (site) => this.delegatorOf(site),
      });
      const record = (id: string, report: DelegationEnvelope) => this.statusInbox.record(id, report);
      const delegateOf = (site: string) => this.delegateOf(site);
      const controls = new DelegationControls(siteId, delegateOf, record, config.tls, deps.clock);
      this.controls = controls;
      const siteStatus = async (site: string) => (await this.registry.state(site)).status;
      this.partitions = new SitePartitions({ store: deps.store, clock: deps.clock, siteStatus, controls });
      this.stopRelay = new DelegationStopRelay(deps.store, deps.readModels, deps.health, controls);
    }
    if (siteId)
      this.delegations = new DelegationSender({
        ...deps,
        tls: config.tls,
        siteId,
        timeoutMs: config.delegationTimeoutSeconds * 1000,
        targetOf: (site, relation) => this.delegationTargetOf(site, relation),
      });
  }

  /**
   * Where a site that may delegate work here takes status reports, and the key the two share: this site's parent
   * (the credential it issued), or a configured peer with a secret.
   */
  delegatorOf(siteId: string): { url: string; key: string } | undefined {
    const parent = this.link?.parentCredential();
    if (parent && this.config.parent && parent.parentSiteId === siteId)
      return { url: this.config.parent.url, key: parent.credential };
    return this.peerAccess(siteId);
  }

  /** The key this site shares with a site it delegates to (a registered child, else a configured peer). */
  async delegateKeyOf(siteId: string): Promise<string | undefined> {
    return (await this.childAccess(siteId))?.key ?? this.peerAccess(siteId)?.key;
  }

  /** Where a site this one delegates to answers, and the key the two share (a registered child, else a peer). */
  async delegateOf(siteId: string): Promise<{ url: string; key: string } | undefined> {
    const child = await this.childAccess(siteId);
    if (child?.url) return { url: child.url, key: child.key };
    return child ? undefined : this.peerAccess(siteId);
  }

  /** Where a child or a peer takes delegations, and the key the two share (undefined: not one now). */
  async delegationTargetOf(siteId: string, relation: SiteRelation): Promise<DelegationTarget | undefined> {
    if (relation === 'peer') return this.peerAccess(siteId);
    const child = await this.childAccess(siteId);
    return child?.url ? { url: child.url, key: child.key } : undefined;
  }

  /** A registered (not deregistered) child: its address, if it gave one, and its site credential, derived again. */
  private async childAccess(siteId: string): Promise<{ url?: string; key: string } | undefined> {
    const state = await this.registry.state(siteId);
    const registration = state.registration;
    if (state.status === 'deregistered' || !registration) return undefined;
    const key = this.secrets.credentialFor(siteId, registration.joinTokenDigest);
    return { ...(registration.url ? { url: registration.url } : {}), key };
  }

  /** A configured peer with a shared secret: where it answers and the secret. */
  private peerAccess(siteId: string): { url: string; key: string } | undefined {
    const peer = this.config.peers.find((p) => p.siteId === siteId);
    const key = Object.hasOwn(this.config.peerSecrets, siteId) ? this.config.peerSecrets[siteId] : undefined;
    return peer && key ? { url: peer.url, key } : undefined;
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
    this.stopRelay?.begin();
    this.partitions?.start();
    this.delegations?.begin();
  }

  async stop(): Promise<void> {
    await this.delegations?.stop();
    this.partitions?.stop();
    await this.stopRelay?.stop();
    await this.statusRelay?.stop();
    await this.gossip?.stop();
    await this.link?.stop();
    await this.liveness.stop();
  }
}
