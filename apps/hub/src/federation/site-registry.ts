import { CommandEngine, requestContext, toNewEvents } from '@hcn/commands';
import { Actor, SiteSummary, siteStream, siteSummaryStream } from '@hcn/contracts';
import { HcnError } from '@hcn/contracts';
import { SiteCommand, SiteEvent, SiteState, siteDecider } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../tokens';
import type { FederationConfig } from './federation.config';
import { SiteSecrets, secretDigest } from './site-secrets';

/** What a child site gets back when it registers: its credential (shown once) and the cadence to keep. */
export interface RegisterSiteResponse {
  siteId: string;
  credential: string;
  parentSiteId: string | null;
  summaryIntervalSeconds: number;
  siteTtlSeconds: number;
}

/** A registration as the parent's API takes it (shape validated at the edge). */
export interface SiteRegistration {
  joinToken: string;
  siteId: string;
  name?: string;
  url?: string;
  regions?: string[];
}

/** The actor of what a site does through the federation API (system principal named after the site). */
export function siteActor(siteId: string): Actor {
  return { kind: 'system', id: `site:${siteId}` };
}

/**
 * The site use cases of this hub, all through one engine on `site-<id>` streams with the site decider: join tokens,
 * child registration, summaries, gossip membership, liveness and deregistration. Summaries go to
 * `sitesummary-<id>` (retention by maxAge) once the decider accepted the credential.
 */
export class SiteRegistry {
  readonly engine: CommandEngine<SiteCommand, SiteEvent, SiteState>;

  constructor(
    private readonly store: EventStore,
    readonly config: FederationConfig,
    private readonly clock: Clock,
    private readonly secrets: SiteSecrets,
  ) {
    this.engine = new CommandEngine(store, siteDecider, { jitter: true });
  }

  /** Runs one site command; returns the types of the events it appended. */
  async run(command: SiteCommand, actor: Actor): Promise<string[]> {
    const context = requestContext(actor, this.clock(), randomUUID());
    const handled = await this.engine.handle(siteStream(command.siteId), command, context);
    return handled.events.map((e) => e.type);
  }

  /** A site's state as its stream holds it now. */
  async state(siteId: string): Promise<SiteState> {
    return (await this.engine.load(siteStream(siteId))).state;
  }

  /** Issues a join token for a child site (the log keeps its digest and expiry). */
  async issueJoinToken(siteId: string, ttlSeconds: number, actor: Actor) {
    const expiresAt = new Date(this.clock().getTime() + ttlSeconds * 1000);
    const token = this.secrets.issueJoinToken(siteId, expiresAt);
    const command = {
      type: 'IssueJoinToken' as const,
      siteId,
      tokenDigest: secretDigest(token),
      expiresAt: expiresAt.toISOString(),
    };
    await this.run(command, actor);
    return { siteId, token, expiresAt: expiresAt.toISOString() };
  }

  /** Registers a child site with its join token (a retry with the same token answers the same credential). */
  async register(request: SiteRegistration): Promise<RegisterSiteResponse> {
    const claims = this.secrets.joinClaims(request.joinToken);
    if (!claims)
      throw new HcnError('AUTH.INVALID_FEDERATION_JOIN_TOKEN', 'The federation join token is not valid');
    if (claims.siteId !== request.siteId)
      throw new HcnError(
        'AUTH.FEDERATION_JOIN_TOKEN_MISMATCH',
        `This join token registers only site ${claims.siteId}`,
        { siteId: claims.siteId },
      );
    const tokenDigest = secretDigest(request.joinToken);
    const credential = this.secrets.credentialFor(request.siteId, tokenDigest);
    await this.run(
      {
        type: 'RegisterSite',
        siteId: request.siteId,
        name: request.name ?? request.siteId,
        url: request.url ?? null,
        regions: request.regions ?? [],
        tokenDigest,
        credentialDigest: secretDigest(credential),
        now: this.clock().toISOString(),
      },
      siteActor(request.siteId),
    );
    await this.store.setStreamMetadata(siteSummaryStream(request.siteId), {
      maxAge: this.config.summaryRetentionSeconds,
    });
    return {
      siteId: request.siteId,
      credential,
      parentSiteId: this.config.siteId ?? null,
      summaryIntervalSeconds: this.config.summaryIntervalSeconds,
      siteTtlSeconds: this.config.siteTtlSeconds,
    };
  }

  /** Records a child's summary after the decider accepted its credential (a summary of an offline site brings it back). */
  async recordSummary(siteId: string, credential: string, summary: SiteSummary): Promise<Date> {
    const receivedAt = this.clock();
    const command = {
      type: 'RecordSummary' as const,
      siteId,
      credentialDigest: secretDigest(credential),
      seenAt: receivedAt.toISOString(),
    };
    await this.run(command, siteActor(siteId));
    const context = requestContext(siteActor(siteId), receivedAt, randomUUID());
    const data = { siteId, receivedAt: receivedAt.toISOString(), summary };
    const events = toNewEvents([{ type: 'SiteSummaryRecorded', data }], context);
    await this.store.append(siteSummaryStream(siteId), events, 'any');
    return receivedAt;
  }
}
