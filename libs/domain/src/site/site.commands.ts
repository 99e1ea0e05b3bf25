import type { EventDataOf } from '@hcn/contracts';

/**
 * Commands the site decider accepts (one site as this site knows it). Time is passed in (ISO-8601); digests are
 * SHA-256 hex computed at the edge: the decider never sees a secret.
 */
export type SiteCommand =
  | { type: 'IssueJoinToken'; siteId: string; tokenDigest: string; expiresAt: string }
  | {
      type: 'RegisterSite';
      siteId: string;
      name: string;
      url: string | null;
      regions: readonly string[];
      tokenDigest: string;
      credentialDigest: string;
      now: string;
    }
  | { type: 'RecordSummary'; siteId: string; credentialDigest: string; seenAt: string }
  | { type: 'ObserveGossip'; siteId: string; url: string; via: string; seenAt: string }
  | { type: 'CheckLiveness'; siteId: string; now: string; ttlSeconds: number; lastSeenAt: string | null }
  | { type: 'DeregisterSite'; siteId: string; reason: string };

/** An event the site decider emits (type and data; the handler adds ids and metadata). */
export type SiteEvent =
  | { type: 'SiteJoinTokenIssued'; data: EventDataOf<'SiteJoinTokenIssued'> }
  | { type: 'SiteRegistered'; data: EventDataOf<'SiteRegistered'> }
  | { type: 'SiteDiscovered'; data: EventDataOf<'SiteDiscovered'> }
  | { type: 'SiteWentOffline'; data: EventDataOf<'SiteWentOffline'> }
  | { type: 'SiteCameOnline'; data: EventDataOf<'SiteCameOnline'> }
  | { type: 'SiteDeregistered'; data: EventDataOf<'SiteDeregistered'> };

/** Lifecycle of a site as this site knows it: `invited` holds an unspent join token and nothing else yet. */
export type SiteStatus = 'unknown' | 'invited' | 'online' | 'offline' | 'deregistered';

/** What the site decider knows about one site (folded from `site-<id>`). */
export interface SiteState {
  readonly status: SiteStatus;
  /** The one unspent join token (the newest issued), as a digest. */
  readonly joinToken?: { readonly digest: string; readonly expiresAt: string };
  /** Set when the site registered with this one as its child (its credential kept as a digest). */
  readonly registration?: EventDataOf<'SiteRegistered'>;
  /** Set when gossip made the site known (a member, maybe also a child). */
  readonly discovered?: EventDataOf<'SiteDiscovered'>;
  /** Last time an online transition recorded hearing from it. */
  readonly lastSeenAt?: string;
}

/** State before any event. */
export const initialSiteState: SiteState = { status: 'unknown' };
