import { DEFAULT_FEDERATION_ORDER, FederationSetup } from '@hcn/cluster';
import {
  FederationTier,
  federationTierSchema,
  namespaceSchema,
  readFederationJoinToken,
  siteIdSchema,
  siteUrlSchema,
} from '@hcn/contracts';
import { envNumber, parseConfig } from '@hcn/platform';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { pemFileSetting } from '../tls/listener-tls';

/** A statically configured peer site: its id and where its federation API answers. */
export interface PeerSite {
  readonly siteId: string;
  readonly url: string;
}

/** TLS material for calls to other sites (PEM contents); mTLS when cert and key are given. */
export interface SiteTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** Validated federation settings of a hub (all off unless HCN_SITE_ID is set). */
export interface FederationConfig {
  /** This site's id; undefined: the hub takes no part in federation (its federation API still answers, refusing). */
  readonly siteId?: string;
  readonly siteName: string;
  /** Where other sites reach this one (undefined: the hub's own listener address). */
  readonly siteUrl?: string;
  readonly regions: readonly string[];
  /** A site silent (no summary, no gossip) this long goes offline. */
  readonly siteTtlSeconds: number;
  /** How often a child sends its summary (and what this site tells the children registering with it). */
  readonly summaryIntervalSeconds: number;
  /** How long summaries stay in the log (stream maxAge, as heartbeats). */
  readonly summaryRetentionSeconds: number;
  readonly livenessSweepMs: number;
  /** The parent this site registers with and reports to; undefined: none. */
  readonly parent?: {
    readonly url: string;
    readonly joinToken?: string;
    readonly credentialFile: string;
  };
  readonly tls: SiteTls;
  readonly peers: readonly PeerSite[];
  /** Namespaces this site runs delegated work of (`*`: all); a delegation of another is refused. Empty: none. */
  readonly namespaces: readonly string[];
  /** Per peer: the secret the two share to sign delegations between them (a peer without one is not delegated to). */
  readonly peerSecrets: Readonly<Record<string, string>>;
  /** Where a decision looks, in order: this site's tree, its child sites, its peers (CNET: local, children, peers). */
  readonly order: readonly FederationTier[];
  /** A delegation not answered in this long is recorded rejected (`timeout`) and the instance falls back. */
  readonly delegationTimeoutSeconds: number;
  /** Gossip among members, on when a shared secret is configured. */
  readonly gossip?: {
    readonly secret: string;
    readonly intervalMs: number;
    readonly fanout: number;
    readonly hops: number;
    /** How long a learned update keeps being pushed on (its rumour TTL). */
    readonly rumourTtlMs: number;
    readonly antiEntropyIntervalMs: number;
    /** How far a signed message's time may be from this site's clock. */
    readonly maxSkewMs: number;
  };
}

const unsetIfEmpty = (v: unknown): unknown => (v === '' ? undefined : v);
const optional = <S extends z.ZodTypeAny>(schema: S) => z.preprocess(unsetIfEmpty, schema.optional());
const positiveInt = (fallback: number, name: string) =>
  envNumber(fallback).pipe(z.number().int(`${name}: a whole number`).positive(`${name}: more than 0`));

/** A comma-separated setting as its items, trimmed, empty ones left out. */
const commaList = z
  .string()
  .default('')
  .transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

/** A comma-separated setting of `id=value` pairs: each as `{siteId, [key]: value}` (checked by the caller's pipe). */
const idPairs = <K extends string>(key: K) =>
  commaList.transform((pairs) =>
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      return { siteId: pair.slice(0, at), [key]: pair.slice(at + 1) } as { siteId: string } & Record<
        K,
        string
      >;
    }),
  );

/** HCN_FEDERATION_PEERS: `id=url` pairs, comma-separated. */
const peersSchema = idPairs('url').pipe(
  z.array(z.object({ siteId: siteIdSchema, url: siteUrlSchema }), { message: 'id=url pairs' }),
);

/** HCN_FEDERATION_NAMESPACES: namespaces served to a parent's delegations, comma-separated, or `*` for all. */
const namespacesSchema = commaList.pipe(
  z.array(z.union([z.literal('*'), namespaceSchema]), { message: 'namespaces, comma-separated, or *' }),
);

/** HCN_FEDERATION_PEER_SECRETS: `id=secret` pairs, comma-separated (secrets of at least 32 characters). */
const peerSecretsSchema = idPairs('secret').pipe(
  z.array(
    z.object({
      siteId: siteIdSchema,
      secret: z.string().min(32, 'HCN_FEDERATION_PEER_SECRETS: secrets of at least 32 characters'),
    }),
    { message: 'id=secret pairs' },
  ),
);

/** HCN_FEDERATION_ORDER: the tiers a decision tries, comma-separated, each once (default local,children,peers). */
const orderSchema = z
  .string()
  .default(DEFAULT_FEDERATION_ORDER.join(','))
  .transform((text) => text.split(',').map((t) => t.trim()))
  .pipe(
    z
      .array(federationTierSchema)
      .min(1)
      .refine((tiers) => new Set(tiers).size === tiers.length, 'each of local, children, peers at most once'),
  );

const schema = z
  .object({
    HCN_SITE_ID: optional(siteIdSchema),
    HCN_SITE_NAME: optional(z.string().min(1).max(200)),
    HCN_SITE_URL: optional(siteUrlSchema),
    HCN_SITE_REGIONS: z.string().default(''),
    HCN_FEDERATION_SITE_TTL_SECONDS: envNumber(30).pipe(z.number().positive()),
    HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: envNumber(10).pipe(z.number().positive()),
    HCN_FEDERATION_SUMMARY_RETENTION_SECONDS: positiveInt(86400, 'HCN_FEDERATION_SUMMARY_RETENTION_SECONDS'),
    HCN_FEDERATION_LIVENESS_SWEEP_MS: positiveInt(1000, 'HCN_FEDERATION_LIVENESS_SWEEP_MS'),
    HCN_FEDERATION_PARENT_URL: optional(siteUrlSchema),
    HCN_FEDERATION_JOIN_TOKEN: optional(z.string()),
    HCN_FEDERATION_CREDENTIAL_FILE: z.string().default('data/site-credential'),
    HCN_FEDERATION_TLS_CA: pemFileSetting('HCN_FEDERATION_TLS_CA'),
    HCN_FEDERATION_TLS_CERT: pemFileSetting('HCN_FEDERATION_TLS_CERT'),
    HCN_FEDERATION_TLS_KEY: pemFileSetting('HCN_FEDERATION_TLS_KEY', 'private key'),
    HCN_FEDERATION_PEERS: peersSchema,
    HCN_FEDERATION_NAMESPACES: namespacesSchema,
    HCN_FEDERATION_PEER_SECRETS: peerSecretsSchema,
    HCN_FEDERATION_ORDER: orderSchema,
    HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: envNumber(10).pipe(
      z.number().positive('HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: more than 0'),
    ),
    HCN_FEDERATION_GOSSIP_SECRET: optional(
      z.string().min(32, 'HCN_FEDERATION_GOSSIP_SECRET must be at least 32 characters'),
    ),
    HCN_FEDERATION_GOSSIP_INTERVAL_MS: positiveInt(1000, 'HCN_FEDERATION_GOSSIP_INTERVAL_MS'),
    HCN_FEDERATION_GOSSIP_FANOUT: positiveInt(3, 'HCN_FEDERATION_GOSSIP_FANOUT'),
    HCN_FEDERATION_GOSSIP_HOPS: positiveInt(4, 'HCN_FEDERATION_GOSSIP_HOPS'),
    HCN_FEDERATION_GOSSIP_TTL_MS: positiveInt(5000, 'HCN_FEDERATION_GOSSIP_TTL_MS'),
    HCN_FEDERATION_ANTI_ENTROPY_INTERVAL_MS: positiveInt(5000, 'HCN_FEDERATION_ANTI_ENTROPY_INTERVAL_MS'),
    HCN_FEDERATION_GOSSIP_MAX_SKEW_MS: positiveInt(60_000, 'HCN_FEDERATION_GOSSIP_MAX_SKEW_MS'),
  })
  .superRefine((c, ctx) => {
    const problem = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message });
    const needsSite =
      c.HCN_FEDERATION_PARENT_URL || c.HCN_FEDERATION_PEERS.length || c.HCN_FEDERATION_GOSSIP_SECRET;
    if (needsSite && !c.HCN_SITE_ID)
      problem('HCN_SITE_ID', 'set this site id to use a parent, peers or gossip (HCN_FEDERATION_*)');
    if (c.HCN_FEDERATION_SITE_TTL_SECONDS <= c.HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS)
      problem(
        'HCN_FEDERATION_SITE_TTL_SECONDS',
        'must be longer than HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS',
      );
    if ((c.HCN_FEDERATION_TLS_CERT === undefined) !== (c.HCN_FEDERATION_TLS_KEY === undefined))
      problem(
        'HCN_FEDERATION_TLS_CERT',
        'HCN_FEDERATION_TLS_CERT and HCN_FEDERATION_TLS_KEY go together (mTLS)',
      );
    if (c.HCN_FEDERATION_PEERS.some((p) => p.siteId === c.HCN_SITE_ID))
      problem('HCN_FEDERATION_PEERS', 'names this site itself');
    const peerIds = new Set(c.HCN_FEDERATION_PEERS.map((p) => p.siteId));
    for (const { siteId } of c.HCN_FEDERATION_PEER_SECRETS)
      if (!peerIds.has(siteId))
        problem('HCN_FEDERATION_PEER_SECRETS', `names ${siteId}, which HCN_FEDERATION_PEERS does not`);
    if (
      c.HCN_FEDERATION_NAMESPACES.length &&
      !c.HCN_FEDERATION_PARENT_URL &&
      !c.HCN_FEDERATION_PEER_SECRETS.length
    )
      problem(
        'HCN_FEDERATION_NAMESPACES',
        'delegations come from a parent or a peer: set HCN_FEDERATION_PARENT_URL or HCN_FEDERATION_PEER_SECRETS',
      );
    if (!c.HCN_FEDERATION_PARENT_URL) return;
    const token = c.HCN_FEDERATION_JOIN_TOKEN;
    if (token === undefined && !existsSync(c.HCN_FEDERATION_CREDENTIAL_FILE))
      problem(
        'HCN_FEDERATION_JOIN_TOKEN',
        `a parent needs a join token (or a stored credential in ${c.HCN_FEDERATION_CREDENTIAL_FILE})`,
      );
    const claims = token === undefined ? undefined : readFederationJoinToken(token)?.claims;
    if (token !== undefined && !claims)
      problem(
        'HCN_FEDERATION_JOIN_TOKEN',
        'not a federation join token (POST /v1/federation/join-tokens on the parent)',
      );
    else if (claims && claims.siteId !== c.HCN_SITE_ID)
      problem('HCN_FEDERATION_JOIN_TOKEN', `issued for site ${claims.siteId}, not ${c.HCN_SITE_ID}`);
  });

type Parsed = z.output<typeof schema>;

function gossipOf(c: Parsed): FederationConfig['gossip'] {
  if (!c.HCN_FEDERATION_GOSSIP_SECRET) return undefined;
  return {
    secret: c.HCN_FEDERATION_GOSSIP_SECRET,
    intervalMs: c.HCN_FEDERATION_GOSSIP_INTERVAL_MS,
    fanout: c.HCN_FEDERATION_GOSSIP_FANOUT,
    hops: c.HCN_FEDERATION_GOSSIP_HOPS,
    rumourTtlMs: c.HCN_FEDERATION_GOSSIP_TTL_MS,
    antiEntropyIntervalMs: c.HCN_FEDERATION_ANTI_ENTROPY_INTERVAL_MS,
    maxSkewMs: c.HCN_FEDERATION_GOSSIP_MAX_SKEW_MS,
  };
}

/** Reads and validates the federation settings (HCN_SITE_*, HCN_FEDERATION_*); throws ConfigError naming each problem. */
export function loadFederationConfig(env: NodeJS.ProcessEnv): FederationConfig {
  const c = parseConfig('hub federation', schema, env);
  const tls = {
    ...(c.HCN_FEDERATION_TLS_CA ? { ca: c.HCN_FEDERATION_TLS_CA } : {}),
    ...(c.HCN_FEDERATION_TLS_CERT ? { cert: c.HCN_FEDERATION_TLS_CERT } : {}),
    ...(c.HCN_FEDERATION_TLS_KEY ? { key: c.HCN_FEDERATION_TLS_KEY } : {}),
  };
  return {
    siteId: c.HCN_SITE_ID,
    siteName: c.HCN_SITE_NAME ?? c.HCN_SITE_ID ?? 'hcn',
    siteUrl: c.HCN_SITE_URL,
    regions: c.HCN_SITE_REGIONS.split(',')
      .map((r) => r.trim())
      .filter(Boolean),
    siteTtlSeconds: c.HCN_FEDERATION_SITE_TTL_SECONDS,
    summaryIntervalSeconds: c.HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS,
    summaryRetentionSeconds: c.HCN_FEDERATION_SUMMARY_RETENTION_SECONDS,
    livenessSweepMs: c.HCN_FEDERATION_LIVENESS_SWEEP_MS,
    parent: c.HCN_FEDERATION_PARENT_URL
      ? {
          url: c.HCN_FEDERATION_PARENT_URL.replace(/\/+$/, ''),
          joinToken: c.HCN_FEDERATION_JOIN_TOKEN,
          credentialFile: c.HCN_FEDERATION_CREDENTIAL_FILE,
        }
      : undefined,
    tls,
    peers: c.HCN_FEDERATION_PEERS.map((p) => ({ ...p, url: p.url.replace(/\/+$/, '') })),
    namespaces: c.HCN_FEDERATION_NAMESPACES,
    peerSecrets: Object.fromEntries(c.HCN_FEDERATION_PEER_SECRETS.map((p) => [p.siteId, p.secret])),
    order: c.HCN_FEDERATION_ORDER,
    delegationTimeoutSeconds: c.HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS,
    gossip: gossipOf(c),
  };
}

/**
 * How this hub schedules across sites: off without a site id; else its tiers in order, and the peers it can delegate
 * to (those with a shared secret).
 */
export function federationSetupOf(config: FederationConfig): FederationSetup | undefined {
  if (!config.siteId) return undefined;
  const peers = config.peers.filter((p) => Object.hasOwn(config.peerSecrets, p.siteId)).map((p) => p.siteId);
  return { order: config.order, peers };
}
