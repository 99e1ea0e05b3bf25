import { RecordedEventOf, RecordedHcnEvent, inParallel, isEventOfTypes } from '@hcn/contracts';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { markAllocationLost } from './mark-lost';
import type { Clock } from '../tokens';
import { Logger } from '@nestjs/common';

const logger = new Logger('start-deadlines');

/** Events that settle whether a placed allocation started. */
const FOLLOWED = {
  AllocationPlaced: true,
  AllocationStarted: true,
  AllocationCompleted: true,
  AllocationFailed: true,
  AllocationStopped: true,
  AllocationLost: true,
} as const;

/** How long a placement may wait for its start report, and how often its run command is sent again meanwhile. */
export interface StartDeadlineOptions {
  /** From the placement (or the last send) to the next send; after the last send, to the loss. */
  readonly deadlineMs: number;
  /** Sends after the first (same command id: an agent that applied it ignores it). */
  readonly resends: number;
  /** From when a missing start report may count: report ingestion stalled until then (IngestStalls). */
  readonly ingestResumedAt?: () => number;
}

/** Publishes a placement's run command again (the dispatcher). */
export interface RunCommandResender {
  resend(placed: RecordedEventOf<'AllocationPlaced'>): Promise<void>;
}

interface Waiting {
  readonly placed: RecordedEventOf<'AllocationPlaced'>;
  /** When the command was last sent (the placement, then each resend). */
  sentAt: number;
  sends: number;
}

/**
 * Placed allocations whose node has not reported them started: their run command is sent again (same allocation,
 * same command id) after each deadline, and after the last the allocation is marked lost with
 * `ALLOCATION.NOT_STARTED` (its restart policy decides what next). A command lost on the way, or an agent that
 * missed it, does not leave an allocation placed for ever.
 */
export class StartDeadlines {
  private readonly waiting = new Map<string, Waiting>();
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private caughtUp = false;
  private checking = false;

  constructor(
    private readonly store: EventStore,
    private readonly resender: RunCommandResender,
    private readonly clock: Clock,
    private readonly options: StartDeadlineOptions,
    private readonly health = new SubscriptionHealth(),
  ) {}

  /** Follows the allocations' events and checks the deadlines. */
  start(): void {
    this.subscription = superviseSubscription(
      this.store,
      {
        filter: { kind: 'eventTypePrefix', prefixes: Object.keys(FOLLOWED) },
        onEvent: (event) => this.apply(event),
        onCaughtUp: () => (this.caughtUp = true),
        onError: (error) => logger.error(error.message),
        coalesceMs: 200,
      },
      { name: 'start-deadlines', health: this.health, log: (line) => logger.warn(line) },
    );
    const every = Math.max(100, Math.min(5000, this.options.deadlineMs / 4));
    this.timer = setInterval(() => void this.check(), every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.stop();
  }

  /** Allocations waiting for their start report now (metrics, specs). */
  get pending(): number {
    return this.waiting.size;
  }

  private apply(event: RecordedHcnEvent): void {
    if (!isEventOfTypes(event, FOLLOWED)) return;
    const { allocationId } = event.data;
    if (event.type !== 'AllocationPlaced') return void this.waiting.delete(allocationId);
    this.waiting.set(allocationId, { placed: event, sentAt: Date.parse(event.recordedAt), sends: 1 });
  }

  /** Sends again what waited a whole deadline, and gives up on what waited one after its last send. */
  private async check(): Promise<void> {
    if (!this.caughtUp || this.checking) return;
    this.checking = true;
    try {
      const now = this.clock().getTime();
      // a start reported while ingestion stalled is in the topic still: its deadline runs from the resumption
      const from = this.options.ingestResumedAt?.() ?? Number.NEGATIVE_INFINITY;
      const due = [...this.waiting.values()].filter(
        (w) => now - Math.max(w.sentAt, from) >= this.options.deadlineMs,
      );
      await inParallel(due, 4, (w) =>
        w.sends > this.options.resends ? this.giveUp(w) : this.resend(w, now),
      );
    } finally {
      this.checking = false;
    }
  }

  private async resend(waiting: Waiting, now: number): Promise<void> {
    waiting.sentAt = now;
    waiting.sends += 1;
    await this.resender.resend(waiting.placed).catch((error: Error) => {
      logger.error(`resending ${waiting.placed.eventId}: ${error.message}`);
    });
  }

  private async giveUp(waiting: Waiting): Promise<void> {
    const data = waiting.placed.data;
    const seconds = Math.round(this.options.deadlineMs / 1000);
    await markAllocationLost(this.store, {
      workloadId: data.workloadId,
      allocationId: data.allocationId,
      nodeId: data.nodeId,
      reason: `ALLOCATION.NOT_STARTED: node ${data.nodeId} reported no start within ${seconds} s of each of ${waiting.sends} run commands`,
      by: 'start-deadlines',
      cause: waiting.placed.eventId,
      now: this.clock(),
    }).then(
      () => this.waiting.delete(data.allocationId),
      (error: Error) => logger.error(`lost ${data.allocationId}: ${error.message}`),
    );
  }
}
