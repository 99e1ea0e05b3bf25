import {
  BoundedMap,
  DelegatedFrom,
  DelegationStatusAnswer,
  DelegationStatusReport,
  RecordedHcnEvent,
  delegationStatusAnswerSchema,
  isEventOf,
  workloadStream,
} from '@hcn/contracts';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { ThrottledCheckpoint } from '../../common/throttled-checkpoint';
import type { Clock } from '../../tokens';
import type { SiteTls } from '../federation.config';
import { SiteCallError, callSite, okBody } from '../site-client';
import { loadDelegated, stopDelegated } from './delegated-workloads';
import { DELEGATION_STATUS_PURPOSE, sealSigned } from './signed-message';
import { REPORTED_EVENT_TYPES, statusReport } from './status-report';

const logger = new Logger('delegation-status');

const CHECKPOINT = 'federation-status-relay';
/** Waits between tries of a report the delegating site did not take: doubling from the first to the last. */
const FIRST_RETRY_MS = 200;
const LAST_RETRY_MS = 5000;

/** Where a delegating site takes reports, and the key the two share; undefined for a site this one does not know. */
export type DelegatorOf = (siteId: string) => { url: string; key: string } | undefined;

/** What the relay needs. */
export interface StatusRelayDeps {
  readonly store: EventStore;
  readonly readModels: DataSource;
  readonly health: SubscriptionHealth;
  readonly clock: Clock;
  readonly tls: SiteTls;
  readonly siteId: string;
  readonly delegatorOf: DelegatorOf;
}

/** Codes after which a report is not sent again (the delegating site refuses it for good). */
const REFUSED_FOR_GOOD = new Set([400, 403, 409, 422]);

/**
 * The running site's side of status flowing back: a checkpointed subscription over this site's workload events
 * that, for each workload another site delegated here (`delegatedFrom`), reports the workload's status as of the
 * event to that site (`POST /v1/federation/delegations/:id/status`, signed with the key the two share), in log order,
 * trying again with back-off until it is taken (a partition holds the reports back, they follow once it heals). The
 * answer may ask for a stop or a cancel (the delegating site fell back, or gave the delegation up): the workload is
 * stopped here. Each report names its event, and the delegating site appends nothing for a repeat.
 */
export class DelegationStatusRelay {
  private subscription: Subscription | undefined;
  private readonly delegated = new BoundedMap<DelegatedFrom | null>(20_000);
  /** After a crash at most a second's reports go again (the delegating site appends nothing for a repeat). */
  private readonly checkpoint: ThrottledCheckpoint;
  private stopped = false;
  /** Aborted on stop: a wait between tries ends at once. */
  private readonly stopping = new AbortController();
  private lastError: string | null = null;

  constructor(private readonly deps: StatusRelayDeps) {
    this.checkpoint = new ThrottledCheckpoint(deps.readModels, CHECKPOINT);
  }

  /** Starts following the log from the checkpoint (in the background: a failure to read it is logged). */
  begin(): void {
    this.start().catch((error: Error) => logger.error(`status relay not started: ${error.message}`));
  }

  async start(): Promise<void> {
    const after = await this.checkpoint.load();
    if (this.stopped) return;
    this.subscription = superviseSubscription(
      this.deps.store,
      {
        after,
        filter: { kind: 'eventTypePrefix', prefixes: REPORTED_EVENT_TYPES },
        onEvent: (event) => this.relay(event),
        onCheckpoint: (position) => this.checkpoint.reached(position), // everything before it was reported
        onError: (error) => logger.error(error.message),
      },
      { name: 'delegation-status-relay', health: this.deps.health, log: (line) => logger.warn(line) },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.subscription?.stop();
    await this.checkpoint.save();
  }

  private async relay(event: RecordedHcnEvent): Promise<void> {
    if (!event.streamId.startsWith('workload-')) return;
    const workloadId = event.streamId.slice('workload-'.length);
    if ((await this.delegatedFrom(workloadId, event)) === null) return;
    const loaded = await loadDelegated(this.deps.store, workloadId, event.revision);
    this.delegated.set(workloadId, loaded?.from ?? null);
    if (!loaded) return;
    const report = statusReport(this.deps.siteId, loaded.from, loaded.state, event);
    const answer = await this.send(report, loaded.from.siteId);
    if (answer && answer.action !== 'continue')
      await stopDelegated(
        this.deps.store,
        this.deps.clock,
        workloadId,
        loaded.from,
        `${answer.action === 'cancel' ? 'cancelled' : 'stopped'} by site ${loaded.from.siteId}`,
      );
  }

  /** Where a workload came from (null: submitted here), from its first event; remembered for the latest ones. */
  private async delegatedFrom(workloadId: string, event: RecordedHcnEvent): Promise<DelegatedFrom | null> {
    const known = this.delegated.get(workloadId);
    if (known !== undefined) return known;
    const [first] =
      event.type === 'WorkloadSubmitted'
        ? [event]
        : await this.deps.store.readStream(workloadStream(workloadId), { maxCount: 1 });
    const from = isEventOf(first, 'WorkloadSubmitted') ? (first.data.delegatedFrom ?? null) : null;
    this.delegated.set(workloadId, from);
    return from;
  }

  /** Sends one report until the delegating site takes or refuses it; undefined when refused for good or stopping. */
  private async send(
    report: DelegationStatusReport,
    delegatingSite: string,
  ): Promise<DelegationStatusAnswer | undefined> {
    for (let wait = FIRST_RETRY_MS; !this.stopped; wait = Math.min(wait * 2, LAST_RETRY_MS)) {
      try {
        const answer = await this.post(report, delegatingSite);
        this.failing(null);
        return answer;
      } catch (error) {
        if (error instanceof SiteCallError && error.code === 'FEDERATION.DELEGATION_NOT_FOUND')
          return { delegationId: report.delegationId, action: 'cancel', recorded: [] };
        if (error instanceof SiteCallError && REFUSED_FOR_GOOD.has(error.status)) {
          logger.error(`status of delegation ${report.delegationId} refused: ${error.message}`);
          return undefined;
        }
        this.failing((error as Error).message);
        await sleep(wait, undefined, { signal: this.stopping.signal, ref: false }).catch(() => undefined);
      }
    }
    return undefined;
  }

  private async post(
    report: DelegationStatusReport,
    delegatingSite: string,
  ): Promise<DelegationStatusAnswer> {
    const delegator = this.deps.delegatorOf(delegatingSite);
    if (!delegator) throw new Error(`no key shared with the site that delegated ${report.delegationId}`);
    const body = sealSigned(delegator.key, DELEGATION_STATUS_PURPOSE, report, this.deps.clock());
    const url = `${delegator.url}/v1/federation/delegations/${report.delegationId}/status`;
    const answer = await callSite(url, 'POST', body, { tls: this.deps.tls });
    return delegationStatusAnswerSchema.parse(okBody(answer, 'delegation status'));
  }

  private failing(error: string | null): void {
    if (error !== this.lastError)
      logger.warn(error ? `status reports held back: ${error}` : 'status reports flowing again');
    this.lastError = error;
  }
}
