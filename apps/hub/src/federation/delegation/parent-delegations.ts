import { CommandEngine } from '@hcn/commands';
import {
  DelegationAnswer,
  EventDataOf,
  Position,
  RecordedEventOf,
  RecordedHcnEvent,
  SiteRelation,
  WorkloadSpec,
  delegationAnswerSchema,
  workloadStream,
} from '@hcn/contracts';
import {
  ACTIVE_ALLOCATION,
  DelegationRefusal,
  WorkloadCommand,
  WorkloadEvent,
  WorkloadState,
  workloadDecider,
} from '@hcn/domain';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { AheadOfLog } from '../../common/ahead-of-log';
import { ThrottledCheckpoint } from '../../common/throttled-checkpoint';
import type { Clock } from '../../tokens';
import type { SiteTls } from '../federation.config';
import { SiteCallError, callSite, okBody } from '../site-client';
import { sealDelegation } from './delegation-envelope';
import { DelegationWatermark } from './delegation-watermark';

const logger = new Logger('delegation-sender');

const CHECKPOINT = 'federation-delegation-sender';
/** Delegations asked at once; the next waits for the oldest (a slow site holds back at most this many). */
const MAX_IN_FLIGHT = 64;
/** Waits between tries of a site that did not answer: doubling from the first to the last. */
const FIRST_RETRY_MS = 200;
const LAST_RETRY_MS = 5000;
/** Hand-overs started as their append returned and not yet read back from the log, at most. */
const EARLY_LIMIT = 10_000;

/** Where a site takes delegations, and the key the two share. */
export interface DelegationTarget {
  readonly url: string;
  readonly key: string;
}

/** The target of a child or peer; undefined: this site knows no such site now. */
export type DelegationTargetOf = (
  siteId: string,
  relation: SiteRelation,
) => Promise<DelegationTarget | undefined>;

/** What the sender needs. */
export interface DelegationSenderDeps {
  readonly store: EventStore;
  readonly readModels: DataSource;
  readonly health: SubscriptionHealth;
  readonly clock: Clock;
  readonly tls: SiteTls;
  /** This (delegating) site. */
  readonly siteId: string;
  readonly timeoutMs: number;
  readonly targetOf: DelegationTargetOf;
}

type Delegated = RecordedEventOf<'AllocationDelegated'>;
type DelegatedData = EventDataOf<'AllocationDelegated'>;

/** How a refusal answered with a dotted code is recorded (anything but a namespace the site does not serve: refused). */
function refusalOfCode(code: string): DelegationRefusal['reason'] {
  return code === 'FEDERATION.NAMESPACE_NOT_SERVED' ? 'namespace-not-served' : 'refused';
}

/**
 * The delegating site's sender: a checkpointed subscription over AllocationDelegated (only what was appended is
 * sent; never a second write beside the append) that seals each delegation request with the key this site shares
 * with the chosen site and POSTs it (`/v1/federation/delegations`), trying again until the site answers or
 * HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS have passed since the append. The answer goes through the workload
 * decider: accepted -> DelegationAccepted; rejected, a refusal with a dotted code (FEDERATION.NAMESPACE_NOT_SERVED,
 * an unknown or foreign signature) or the timeout -> DelegationRejected, after which the saga decides the instance
 * again without that site. A delegation already answered (a repeat after a restart) is not sent again; the site is
 * idempotent on the delegation id in any case.
 */
export class DelegationSender {
  private subscription: Subscription | undefined;
  private readonly engine: CommandEngine<WorkloadCommand, WorkloadEvent, WorkloadState>;
  private readonly watermark = new DelegationWatermark();
  private readonly checkpoint: ThrottledCheckpoint;
  private readonly inFlight = new Set<Promise<void>>();
  /** Hand-overs this hub started as their append returned, and delegations the log brought back first. */
  private readonly ahead = new AheadOfLog<void>(EARLY_LIMIT);
  private stopped = false;

  constructor(private readonly deps: DelegationSenderDeps) {
    this.engine = new CommandEngine(deps.store, workloadDecider, { jitter: true });
    this.checkpoint = new ThrottledCheckpoint(deps.readModels, CHECKPOINT);
  }

  /** Starts following the log from the checkpoint (in the background: a failure to read it is logged). */
  begin(): void {
    this.start().catch((error: Error) => logger.error(`delegation sender not started: ${error.message}`));
  }

  async start(): Promise<void> {
    const after = await this.checkpoint.load();
    if (this.stopped) return;
    this.subscription = superviseSubscription(
      this.deps.store,
      {
        after,
        filter: { kind: 'eventTypePrefix', prefixes: ['AllocationDelegated'] },
        onEvent: (event) => this.track(event),
        onCheckpoint: (position) => this.passed(position),
        onError: (error) => logger.error(error.message),
      },
      { name: 'delegation-sender', health: this.deps.health, log: (line) => logger.warn(line) },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop();
    await Promise.allSettled([...this.inFlight, ...this.ahead.pending()]);
    await this.save(true);
  }

  /**
   * A delegation this hub has just appended: the site is asked at once instead of when the log brings the event
   * back (the cross-site hop's latency); the log's copy then only waits for it, so the checkpoint still follows
   * the log and a crash before the answer asks again from there.
   */
  announce(eventId: string, data: DelegatedData, spec: WorkloadSpec): void {
    if (this.stopped) return;
    this.ahead.start(eventId, () => {
      const deadline = this.deps.clock().getTime() + this.deps.timeoutMs;
      return this.handOver(eventId, data, spec, deadline).catch((error: Error) =>
        logger.error(`delegation ${data.allocationId}: ${error.message}`),
      );
    });
  }

  /** Starts asking the site of one delegation (at most MAX_IN_FLIGHT at once), without holding the log back. */
  private async track(event: RecordedHcnEvent): Promise<void> {
    if (event.type !== 'AllocationDelegated') return;
    const early = this.ahead.claim(event.eventId, true);
    while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight);
    const mark = this.watermark.begin(event.position);
    const run: Promise<void> = (early ?? this.delegate(event))
      .catch((error: Error) => logger.error(`delegation ${event.data.allocationId}: ${error.message}`))
      .finally(() => {
        this.inFlight.delete(run);
        this.watermark.settle(mark);
        void this.save(false);
      });
    this.inFlight.add(run);
  }

  /** A delegation read from the log: asked unless already answered (a repeat after a restart). */
  private async delegate(event: Delegated): Promise<void> {
    const { workloadId, allocationId } = event.data;
    const deadline = Date.parse(event.recordedAt) + this.deps.timeoutMs;
    const known = await this.engine.load(workloadStream(workloadId));
    if (!this.awaitsAnswer(known.state, allocationId) || !known.state.spec) return;
    await this.handOver(event.eventId, event.data, known.state.spec, deadline);
  }

  /** Asks the site until it answers or the time is up, and records the answer (unless already answered). */
  private async handOver(
    eventId: string,
    data: DelegatedData,
    spec: WorkloadSpec,
    deadline: number,
  ): Promise<void> {
    const { workloadId, allocationId, siteId } = data;
    const request = {
      delegationId: allocationId,
      parentSiteId: this.deps.siteId,
      parentWorkloadId: workloadId,
      namespace: spec.namespace,
      spec,
    };
    for (let wait = FIRST_RETRY_MS; !this.stopped; wait = Math.min(wait * 2, LAST_RETRY_MS)) {
      const left = deadline - this.deps.clock().getTime();
      if (left <= 0) break;
      const outcome = await this.ask(data, request, left);
      if (outcome) return this.record(eventId, data, outcome);
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, Math.max(0, left))));
    }
    if (this.stopped) return; // the next start goes on from the checkpoint
    const detail = `site ${siteId} did not answer in ${this.deps.timeoutMs / 1000} s`;
    await this.record(eventId, data, { refusal: { reason: 'timeout', detail } });
  }

  /** One try: the site's answer or refusal; undefined when it could not be reached (tried again). */
  private async ask(
    data: DelegatedData,
    request: Parameters<typeof sealDelegation>[1],
    leftMs: number,
  ): Promise<Outcome | undefined> {
    const { siteId, relation } = data;
    const target = await this.deps.targetOf(siteId, relation);
    if (!target) {
      const detail = `site ${siteId} is not a ${relation} this site can delegate to`;
      return { refusal: { reason: 'refused', code: 'FEDERATION.SITE_UNKNOWN', detail } };
    }
    const envelope = sealDelegation(target.key, request, this.deps.clock());
    try {
      const answer = await callSite(`${target.url}/v1/federation/delegations`, 'POST', envelope, {
        tls: this.deps.tls,
        timeoutMs: Math.max(1, Math.min(leftMs, 10_000)),
      });
      return { answer: delegationAnswerSchema.parse(okBody(answer, `delegation to ${siteId}`)) };
    } catch (error) {
      if (error instanceof SiteCallError && error.status >= 400 && error.status < 500) {
        const refusal = { reason: refusalOfCode(error.code), code: error.code, detail: error.message };
        return { refusal };
      }
      logger.warn(`delegation ${request.delegationId} to ${siteId}: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** Records the site's answer through the workload decider (a repeat or a late answer appends nothing). */
  private async record(eventId: string, data: DelegatedData, outcome: Outcome): Promise<void> {
    const { workloadId, allocationId, siteId } = data;
    const at = this.deps.clock().toISOString();
    const command: WorkloadCommand =
      'answer' in outcome
        ? commandOfAnswer(outcome.answer, allocationId, siteId, at)
        : { type: 'RecordDelegationRejected', allocationId, siteId, at, ...outcome.refusal };
    const context = {
      correlationId: workloadId,
      causationId: eventId,
      actor: { kind: 'system' as const, id: `site:${siteId}` },
      now: this.deps.clock(),
    };
    await this.engine.handle(workloadStream(workloadId), command, context);
  }

  private awaitsAnswer(state: WorkloadState, allocationId: string): boolean {
    const allocation = state.allocations[allocationId];
    return !!allocation && ACTIVE_ALLOCATION.has(allocation.status) && !allocation.siteWorkloadId;
  }

  /** Saves the watermark: every delegation at or before it answered (at most every second, unless `now`). */
  private async save(now: boolean): Promise<void> {
    const position = this.watermark.safe();
    if (!position) return;
    await this.checkpoint
      .reached(position, now)
      .catch((error: Error) => logger.warn(`checkpoint: ${error.message}`));
  }

  private async passed(position: Position): Promise<void> {
    this.watermark.passed(position);
    await this.save(false);
  }
}

/** What one try came to: the site's answer, or a refusal to record. */
type Outcome =
  | { answer: DelegationAnswer }
  | { refusal: Pick<DelegationRefusal, 'reason' | 'code' | 'detail' | 'reasons'> };

/** The decider command of a site's answer. */
function commandOfAnswer(
  answer: DelegationAnswer,
  allocationId: string,
  siteId: string,
  at: string,
): WorkloadCommand {
  if (answer.outcome === 'accepted')
    return { type: 'RecordDelegationAccepted', allocationId, siteId, siteWorkloadId: answer.workloadId, at };
  const { reason, code, detail, reasons } = answer;
  return {
    type: 'RecordDelegationRejected',
    allocationId,
    siteId,
    reason,
    code,
    detail,
    ...(reasons ? { reasons } : {}),
    at,
  };
}
