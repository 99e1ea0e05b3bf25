import { z } from 'zod';
import { defineEvent } from '../registry';
import { domainIdSchema } from './node.events';

/** Identifier of a site (one HCN installation): lower-case letters, digits and dashes, as domain ids. */
export const siteIdSchema = domainIdSchema;

/** Where a site's federation API answers: an http(s) URL without credentials, query or fragment. */
export const siteUrlSchema = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'an http:// or https:// URL')
  .refine((u) => {
    const url = new URL(u);
    return !url.username && !url.password && !url.search && !url.hash;
  }, 'no credentials, query or fragment');

/** A region a site serves (as domain regions). */
const regionSchema = z.string().min(1).max(64);
/** A SHA-256 digest, hex (join tokens and site credentials are stored only as this). */
export const sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 digest, hex');
const instant = z.string().datetime({ offset: true });
const count = z.number().int().nonnegative();

/** Accelerators of one vendor and model on a site: how many, how many free. */
const acceleratorSummarySchema = z
  .object({
    vendor: z.string().min(1).max(32),
    model: z.string().min(1).max(128),
    total: count,
    free: count,
  })
  .strict();

/** Online and offline node counts of one domain of a site. */
const domainSummarySchema = z.object({ domainId: domainIdSchema, online: count, offline: count }).strict();

/**
 * What a child site tells its parent about itself, computed from its cluster fold: domains' online/offline counts,
 * free and total CPU (millicores) and memory over online nodes, accelerators by vendor and model, resource tags and
 * regions. `seq` grows with every summary a site sends.
 */
export const siteSummarySchema = z
  .object({
    seq: count,
    generatedAt: instant,
    domains: z.array(domainSummarySchema).max(10_000),
    nodes: z.object({ online: count, offline: count }).strict(),
    cpuMillis: z.object({ total: count, free: count }).strict(),
    memoryBytes: z.object({ total: count, free: count }).strict(),
    accelerators: z.array(acceleratorSummarySchema).max(1_000),
    tags: z.array(z.string().min(1).max(200)).max(256),
    regions: z.array(regionSchema).max(256),
  })
  .strict();

/** A site summary. */
export type SiteSummary = z.output<typeof siteSummarySchema>;

/** An admin issued a federation join token for a child site; only its digest is kept. */
export const SiteJoinTokenIssued = defineEvent(
  'SiteJoinTokenIssued',
  1,
  z.object({ siteId: siteIdSchema, tokenDigest: sha256HexSchema, expiresAt: instant }),
);

/** A child site registered with this (parent) site, spending its join token; its credential is kept as a digest. */
export const SiteRegistered = defineEvent(
  'SiteRegistered',
  1,
  z.object({
    siteId: siteIdSchema,
    name: z.string().min(1).max(200),
    url: siteUrlSchema.nullable(),
    regions: z.array(regionSchema).max(256),
    joinTokenDigest: sha256HexSchema,
    credentialDigest: sha256HexSchema,
    registeredAt: instant,
  }),
);

/** A summary from a child site arrived; lives in `sitesummary-<siteId>` with retention (as heartbeats). */
export const SiteSummaryRecorded = defineEvent(
  'SiteSummaryRecorded',
  1,
  z.object({ siteId: siteIdSchema, receivedAt: instant, summary: siteSummarySchema }),
);

/** Gossip made a site known to this one (a membership change; gossip messages themselves are not recorded). */
export const SiteDiscovered = defineEvent(
  'SiteDiscovered',
  1,
  z.object({ siteId: siteIdSchema, url: siteUrlSchema, via: siteIdSchema, discoveredAt: instant }),
);

/** Nothing was heard from a site (summaries, gossip) for longer than the site TTL. */
export const SiteWentOffline = defineEvent(
  'SiteWentOffline',
  1,
  z.object({ siteId: siteIdSchema, lastSeenAt: instant.nullable(), ttlSeconds: z.number().positive() }),
);

/** An offline site was heard from again. */
export const SiteCameOnline = defineEvent(
  'SiteCameOnline',
  1,
  z.object({ siteId: siteIdSchema, seenAt: instant }),
);

/** An admin removed a site: its credential is void, its summaries and gossip are refused. */
export const SiteDeregistered = defineEvent(
  'SiteDeregistered',
  1,
  z.object({ siteId: siteIdSchema, reason: z.string().max(200) }),
);

/** Every site event definition. */
export const SITE_EVENTS = [
  SiteJoinTokenIssued,
  SiteRegistered,
  SiteSummaryRecorded,
  SiteDiscovered,
  SiteWentOffline,
  SiteCameOnline,
  SiteDeregistered,
] as const;

/** Stream of a site as this site knows it (join tokens, registration, membership, liveness). */
export const siteStream = (siteId: string): string => `site-${siteId}`;
/** Stream of a site's summaries (retention by maxAge, as heartbeats). */
export const siteSummaryStream = (siteId: string): string => `sitesummary-${siteId}`;
