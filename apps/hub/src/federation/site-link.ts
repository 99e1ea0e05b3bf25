import { siteSummaryOf } from '@hcn/cluster';
import type { SiteSummary } from '@hcn/contracts';
import type { ClusterSnapshot } from '@hcn/scheduling';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Logger } from '@nestjs/common';
import type { Clock } from '../tokens';
import type { FederationConfig } from './federation.config';
import { SiteCallError, callSite, okBody } from './site-client';
import type { RegisterSiteResponse } from './site-registry';

/** This site's summaries, numbered, from its cluster fold (the child's side of the link, and its gossip entry). */
export class SummarySource {
  private seq = 0;

  constructor(
    private readonly snapshot: () => ClusterSnapshot,
    private readonly clock: Clock,
  ) {}

  /** A fresh summary of this site. */
  next(): SiteSummary {
    return siteSummaryOf(this.snapshot(), this.seq++, this.clock());
  }
}

const linkLogger = new Logger('federation');

/** What the credential file holds: the parent it is for (its address, and its id when it told one), this site's id and the credential. */
interface StoredCredential {
  parentUrl: string;
  parentSiteId?: string;
  siteId: string;
  credential: string;
}

/** The parent this site is registered with and the credential the two share (the key of the parent's delegations). */
export interface ParentCredential {
  readonly parentSiteId: string;
  readonly credential: string;
}

/** Codes after which a stored credential is no good and the site registers again (with its join token). */
const CREDENTIAL_VOID = new Set(['AUTH.INVALID_SITE_CREDENTIAL', 'SITE.DEREGISTERED', 'SITE.NOT_FOUND']);

/** The state of the link, for operators (`GET /v1/federation/link`). */
export interface LinkStatus {
  parentUrl: string;
  registered: boolean;
  lastSentAt: string | null;
  lastError: string | null;
}

/**
 * The child's side of the link to its parent: registers with the join token once (the credential is kept in a file,
 * mode 0600), then sends a summary every interval over HTTP(S) (this site's CA and client certificate when
 * configured). A credential the parent no longer takes is dropped and the site registers again.
 */
export class SiteLink {
  private timer: NodeJS.Timeout | undefined;
  private stored: StoredCredential | undefined;
  private sending: Promise<void> | undefined;
  private lastSentAt: string | null = null;
  private lastError: string | null = null;

  constructor(
    private readonly config: FederationConfig & {
      siteId: string;
      parent: NonNullable<FederationConfig['parent']>;
    },
    private readonly summaries: SummarySource,
    private readonly siteUrl: () => string,
    private readonly log: (line: string) => void = (line) => linkLogger.log(line),
  ) {
    this.stored = this.readCredential();
  }

  /** Starts sending (the first attempt at once). */
  start(): void {
    this.timer = setInterval(() => void this.tick(), this.config.summaryIntervalSeconds * 1000);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.sending;
  }

  /** Where the link stands. */
  status(): LinkStatus {
    return {
      parentUrl: this.config.parent.url,
      registered: this.stored !== undefined,
      lastSentAt: this.lastSentAt,
      lastError: this.lastError,
    };
  }

  /** The registered parent's id and the shared credential; undefined before registration or without a parent id. */
  parentCredential(): ParentCredential | undefined {
    const stored = this.stored;
    if (!stored?.parentSiteId) return undefined;
    return { parentSiteId: stored.parentSiteId, credential: stored.credential };
  }

  /** One round: register when needed, then send a summary; failures are logged when they change. */
  tick(): Promise<void> {
    if (this.sending) return this.sending;
    this.sending = this.round()
      .then(() => this.failed(null))
      .catch((error: unknown) => this.failed((error as Error).message))
      .finally(() => (this.sending = undefined));
    return this.sending;
  }

  private async round(): Promise<void> {
    const stored = this.stored ?? (await this.register());
    const url = `${this.config.parent.url}/v1/federation/sites/${stored.siteId}/summaries`;
    const answer = await callSite(url, 'POST', this.summaries.next(), {
      tls: this.config.tls,
      bearer: stored.credential,
    });
    try {
      okBody(answer, 'summary');
    } catch (error) {
      if (error instanceof SiteCallError && CREDENTIAL_VOID.has(error.code) && this.config.parent.joinToken)
        this.stored = undefined; // registers again with the join token next round
      throw error;
    }
    this.lastSentAt = new Date().toISOString();
  }

  private async register(): Promise<StoredCredential> {
    const { parent, siteId, siteName, regions } = this.config;
    if (!parent.joinToken) throw new Error('no stored credential and no HCN_FEDERATION_JOIN_TOKEN');
    const body = {
      joinToken: parent.joinToken,
      siteId,
      name: siteName,
      url: this.siteUrl(),
      regions: [...regions],
    };
    const answer = await callSite(`${parent.url}/v1/federation/sites`, 'POST', body, {
      tls: this.config.tls,
    });
    const registered = okBody<RegisterSiteResponse>(answer, 'registration');
    const stored = {
      parentUrl: parent.url,
      ...(registered.parentSiteId ? { parentSiteId: registered.parentSiteId } : {}),
      siteId,
      credential: registered.credential,
    };
    mkdirSync(dirname(parent.credentialFile), { recursive: true });
    writeFileSync(parent.credentialFile, JSON.stringify(stored), { mode: 0o600 });
    this.log(`[federation] registered as site ${siteId} with parent ${parent.url}`);
    this.stored = stored;
    return stored;
  }

  /** The stored credential for this parent and site id, if any. */
  private readCredential(): StoredCredential | undefined {
    const file = this.config.parent.credentialFile;
    if (!existsSync(file)) return undefined;
    try {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredCredential>;
      const ours = stored.parentUrl === this.config.parent.url && stored.siteId === this.config.siteId;
      return ours && typeof stored.credential === 'string' ? (stored as StoredCredential) : undefined;
    } catch {
      return undefined;
    }
  }

  private failed(error: string | null): void {
    if (error !== this.lastError)
      this.log(
        error ? `[federation] link to parent failing: ${error}` : '[federation] link to parent working',
      );
    this.lastError = error;
  }
}
