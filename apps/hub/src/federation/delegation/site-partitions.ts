import { CommandEngine, CommandContext } from '@hcn/commands';
import { RecordedEventOf, inParallel, workloadStream } from '@hcn/contracts';
import {
  ACTIVE_ALLOCATION,
  AllocationView,
  WorkloadCommand,
  WorkloadState,
  workloadDecider,
} from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { Logger } from '@nestjs/common';
import type { Clock } from '../../tokens';
import type { ControlOrder, DelegationControls } from './delegation-controls';
import { Undelivered } from './undelivered';

const logger = new Logger('site-partitions');

/** A site went offline or came back, as recorded. */
export type SiteChange = RecordedEventOf<'SiteWentOffline' | 'SiteCameOnline'>;

/** True for the site facts partitions act on. */
export function isSiteChange(event: { type: string }): event is SiteChange {
  return event.type === 'SiteWentOffline' || event.type === 'SiteCameOnline';
}

/** One allocation of a workload delegated to the site that changed. */
interface Delegation {
  readonly workloadId: string;
  readonly namespace: string;
  readonly allocation: AllocationView;
}

/** A reconciliation of one delegation with its site back online. */
interface Reconcile {
  readonly order: ControlOrder;
  readonly delegation: Delegation;
  readonly cause: SiteChange;
}

/** How often reconciliations that failed are tried again. */
const RETRY_EVERY_MS = 5000;

/** What partitions need: the store, the clock, a site's current status in the log, and control requests. */
export interface SitePartitionsDeps {
  readonly store: EventStore;
  readonly clock: Clock;
  readonly siteStatus: (siteId: string) => Promise<string>;
  readonly controls: DelegationControls;
}

/** Statuses after which this site gave a delegation up; whatever still runs of it there is cancelled. */
const GIVEN_UP = new Set(['rejected', 'lost']);

/**
 * The delegating site's side of partitions. A site offline past its TTL: delegations still waiting for its answer are
 * rejected (`timeout`, the instance falls back to other sites), taken ones become `unknown` (not lost: they may still
 * run there) until the site reports again or an operator gives them up. The site back online: each unknown
 * delegation's status is asked for and recorded (from the site's own log), stops asked meanwhile are sent, and what
 * this site gave up (fell back from, or lost) is cancelled there, so nothing runs twice (what fails is tried
 * again every RETRY_EVERY_MS). Acts only while the log still
 * has the site in that state (a replayed old fact changes nothing).
 */
export class SitePartitions {
  private readonly engine;
  /** Reconciliations that failed when their site came back, tried again (in memory; the next return asks again). */
  private readonly undelivered = new Undelivered<Reconcile>((reconcile) => this.reconcile(reconcile));
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SitePartitionsDeps) {
    this.engine = new CommandEngine(deps.store, workloadDecider);
  }

  /** Acts on a site change with the workloads the caller keeps (in the background; failures are logged). */
  siteChanged(event: SiteChange, workloads: Iterable<[string, WorkloadState]>): void {
    const { siteId } = event.data;
    const delegations = delegationsTo(siteId, workloads);
    if (delegations.length === 0) return;
    const act =
      event.type === 'SiteWentOffline' ? this.offline(event, delegations) : this.online(event, delegations);
    act.catch((error: Error) => logger.error(`site ${siteId} ${event.type}: ${error.message}`));
  }

  private async offline(event: SiteChange, delegations: Delegation[]): Promise<void> {
    const { siteId } = event.data;
    if ((await this.deps.siteStatus(siteId)) !== 'offline') return;
    const reason = `site ${siteId} went offline`;
    const at = this.deps.clock().toISOString();
    await inParallel(delegations, 4, async ({ workloadId, allocation }) => {
      if (!ACTIVE_ALLOCATION.has(allocation.status)) return;
      const { allocationId } = allocation;
      const command: WorkloadCommand = allocation.siteWorkloadId
        ? { type: 'MarkUnknown', allocationId, siteId, reason, at }
        : { type: 'RecordDelegationRejected', allocationId, siteId, reason: 'timeout', detail: reason, at };
      await this.run(workloadId, command, event);
    });
  }

  private async online(event: SiteChange, delegations: Delegation[]): Promise<void> {
    const { siteId } = event.data;
    if ((await this.deps.siteStatus(siteId)) !== 'online') return;
    await inParallel(delegations, 4, async (delegation) => {
      const order = orderFor(siteId, delegation);
      if (!order) return;
      const reconcile = { order, delegation, cause: event };
      await this.reconcile(reconcile).catch((error: Error) => {
        logger.warn(
          `${order.action} of delegation ${order.delegationId} at site ${siteId}: ${error.message}`,
        );
        this.undelivered.add(order.delegationId, reconcile);
      });
    });
  }

  /** One delegation reconciled with its site back online; throws when the site could not be asked. */
  private async reconcile({ order, delegation, cause }: Reconcile): Promise<void> {
    const sent = await this.deps.controls.send(order);
    const action = sent.answer?.action ?? 'continue';
    // unknown while stopping (or given up meanwhile): the status recorded, the stop or cancel follows
    if (order.action === 'status' && action !== 'continue')
      await this.deps.controls.send({ ...order, action });
    if (sent.found || delegation.allocation.status !== 'unknown') return;
    // the site runs no such workload (it never took it, or lost its log): given up here, rescheduled by policy
    const lost = `site ${order.siteId} runs it no more`;
    const at = this.deps.clock().toISOString();
    const command = { type: 'MarkLost' as const, allocationId: order.delegationId, reason: lost, at };
    await this.run(delegation.workloadId, command, cause);
  }

  /** Starts trying again, every RETRY_EVERY_MS, what could not be reconciled when a site came back. */
  start(): void {
    this.timer = setInterval(() => void this.undelivered.retry(), RETRY_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async run(workloadId: string, command: WorkloadCommand, cause: SiteChange): Promise<void> {
    const context: CommandContext = {
      correlationId: workloadId,
      causationId: cause.eventId,
      actor: { kind: 'system', id: 'site-partitions' },
      now: this.deps.clock(),
    };
    await this.engine.handle(workloadStream(workloadId), command, context);
  }
}

/** The delegations to `siteId` among the workloads. */
function delegationsTo(siteId: string, workloads: Iterable<[string, WorkloadState]>): Delegation[] {
  const found: Delegation[] = [];
  for (const [workloadId, state] of workloads) {
    const namespace = state.spec?.namespace;
    if (!namespace) continue;
    for (const allocation of Object.values(state.allocations))
      if (allocation.siteId === siteId) found.push({ workloadId, namespace, allocation });
  }
  return found;
}

/** What to ask of the site about a delegation once it is back: its status, a stop, a cancel; or nothing. */
function orderFor(siteId: string, { namespace, allocation }: Delegation): ControlOrder | undefined {
  const base = { siteId, delegationId: allocation.allocationId, namespace };
  if (allocation.status === 'unknown')
    return { ...base, action: 'status', reason: `site ${siteId} is back online` };
  if (allocation.status === 'stopping')
    return { ...base, action: 'stop', reason: `stop asked while site ${siteId} was away` };
  if (GIVEN_UP.has(allocation.status))
    return { ...base, action: 'cancel', reason: `given up while site ${siteId} was away` };
  return undefined;
}
