import { BoundedMap, RecordedHcnEvent, isEventOf, siteOfPlace, workloadStream } from '@hcn/contracts';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { ThrottledCheckpoint } from '../../common/throttled-checkpoint';
import type { ControlOrder, DelegationControls } from './delegation-controls';
import { Undelivered } from './undelivered';

const logger = new Logger('delegation-stops');

const CHECKPOINT = 'federation-stop-relay';
/** Tries of one stop before it is left to the site's return (partitions ask again then). */
const TRIES = 3;
const FIRST_RETRY_MS = 500;
/** How often stops not delivered in their tries are tried again. */
const RETRY_EVERY_MS = 5000;

/**
 * Forwards stops down (the delegating site's side): a checkpointed subscription over this site's log that, for each
 * stop asked of an allocation delegated to another site (the user stopped, restarted, deleted or updated the
 * workload) and each such allocation given up here (lost by an operator's or this site's decision, not the other
 * site's report), sends that site a stop or a cancel. A few tries, then it is tried again every few seconds (in
 * memory) without holding the others back; an unreachable site goes offline, and when it comes back partitions ask
 * again.
 */
export class DelegationStopRelay {
  private subscription: Subscription | undefined;
  private readonly namespaces = new BoundedMap<string>(20_000);
  /** After a crash at most a second's stops go again (the site stops a workload once). */
  private readonly checkpoint: ThrottledCheckpoint;
  private stopped = false;
  /** Stops and cancels not delivered in their tries, tried again every RETRY_EVERY_MS (a newer one replaces). */
  private readonly undelivered = new Undelivered<ControlOrder>(async (order) => {
    await this.controls.send(order);
  });
  private retryTimer: NodeJS.Timeout | undefined;
  /** Aborted on stop: a wait between tries ends at once. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: EventStore,
    readModels: DataSource,
    private readonly health: SubscriptionHealth,
    private readonly controls: DelegationControls,
  ) {
    this.checkpoint = new ThrottledCheckpoint(readModels, CHECKPOINT);
  }

  /** Starts following the log from the checkpoint (in the background: a failure to read it is logged). */
  begin(): void {
    this.start().catch((error: Error) => logger.error(`stop relay not started: ${error.message}`));
  }

  private async start(): Promise<void> {
    const after = await this.checkpoint.load();
    if (this.stopped) return;
    this.retryTimer = setInterval(() => void this.undelivered.retry(), RETRY_EVERY_MS);
    this.retryTimer.unref();
    this.subscription = superviseSubscription(
      this.store,
      {
        after,
        filter: { kind: 'eventTypePrefix', prefixes: ['AllocationStopRequested', 'AllocationLost'] },
        onEvent: (event) => this.forward(event),
        onCheckpoint: (position) => this.checkpoint.reached(position),
        onError: (error) => logger.error(error.message),
      },
      { name: 'delegation-stop-relay', health: this.health, log: (line) => logger.warn(line) },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    if (this.retryTimer) clearInterval(this.retryTimer);
    await this.subscription?.stop();
    await this.checkpoint.save();
  }

  private async forward(event: RecordedHcnEvent): Promise<void> {
    if (event.type !== 'AllocationStopRequested' && event.type !== 'AllocationLost') return;
    const siteId = siteOfPlace(event.data.nodeId);
    if (!siteId) return;
    // a loss the site itself reported: nothing runs there
    if (event.type === 'AllocationLost' && event.data.siteRevision !== undefined) return;
    const namespace = await this.namespaceOf(event.data.workloadId);
    if (!namespace) return;
    const action = event.type === 'AllocationLost' ? ('cancel' as const) : ('stop' as const);
    const order = {
      siteId,
      delegationId: event.data.allocationId,
      namespace,
      action,
      reason: event.data.reason,
    };
    await this.send(order);
  }

  /** A few tries; then it waits with the undelivered ones (and the site's return reconciles too). */
  private async send(order: ControlOrder): Promise<void> {
    for (let attempt = 1, wait = FIRST_RETRY_MS; !this.stopped; attempt += 1, wait *= 2) {
      try {
        await this.controls.send(order);
        return;
      } catch (error) {
        if (attempt >= TRIES) {
          logger.warn(
            `${order.action} of delegation ${order.delegationId} at ${order.siteId}: ${(error as Error).message}; tried again every ${RETRY_EVERY_MS} ms`,
          );
          return this.undelivered.add(order.delegationId, order);
        }
        await sleep(wait, undefined, { signal: this.stopping.signal, ref: false }).catch(() => undefined);
      }
    }
  }

  private async namespaceOf(workloadId: string): Promise<string | undefined> {
    const known = this.namespaces.get(workloadId);
    if (known) return known;
    const [first] = await this.store.readStream(workloadStream(workloadId), { maxCount: 1 });
    if (!isEventOf(first, 'WorkloadSubmitted')) return undefined;
    this.namespaces.set(workloadId, first.data.spec.namespace);
    return first.data.spec.namespace;
  }
}
