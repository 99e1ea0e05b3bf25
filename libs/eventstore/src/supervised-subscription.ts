import { EventBody, HcnError, HcnEvent, Position, RecordedOf, ValidationError } from '@hcn/contracts';
import type { EventStore, SubscribeToAllOptions, Subscription } from './port';
import { SubscriptionHealth } from './subscription-health';

/** How a subscription is supervised. */
export interface Supervision {
  /** Its name in readiness, metrics and logs. */
  readonly name: string;
  readonly health: SubscriptionHealth;
  /** First wait after a handler failure (doubles per failure in a row, with jitter); default 200 ms. */
  readonly initialBackoffMs?: number;
  /** Longest wait; default 30 s. */
  readonly maxBackoffMs?: number;
  /**
   * Where to resume after a failure (exclusive). Default: the last checkpoint that went through when the follower
   * takes checkpoints (it saves its progress there), else after the last event whose handler succeeded. A follower
   * that buffers events before writing them gives its last written position.
   */
  readonly resumeAfter?: () => Position | undefined;
  /** True for an error the event itself causes (retrying cannot help): the event is parked. Default: invalid data. */
  readonly isPoison?: (error: unknown) => boolean;
  readonly log?: (line: string) => void;
}

/** Invalid data in an event (a schema violation), as opposed to a failure that may pass. */
export function isInvalidEventData(error: unknown): boolean {
  return (
    error instanceof ValidationError || (error instanceof HcnError && error.code.endsWith('SCHEMA_INVALID'))
  );
}

/**
 * Follows `$all` like `store.subscribeToAll`, but never dies silently: when its handler (or checkpoint) fails, it
 * resumes from its checkpoint after a back-off with jitter, for as long as it takes, and says so in `health`
 * (readiness fails while it does); an event whose data is invalid is parked with its reason and counted instead.
 * Read failures are retried by the store's subscription itself and only noted.
 */
export function superviseSubscription<E extends EventBody = HcnEvent>(
  store: Pick<EventStore<E>, 'subscribeToAll'>,
  options: SubscribeToAllOptions<E>,
  supervision: Supervision,
): Subscription {
  return new SupervisedSubscription(store, options, supervision);
}

class SupervisedSubscription<E extends EventBody> implements Subscription {
  private current: Subscription | undefined;
  private stopped = false;
  /** After the last event handled. */
  private handled: Position | undefined;
  /** The last checkpoint the follower took. */
  private checkpointed: Position | undefined;
  private caughtUpSaid = false;
  private retry: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private readonly status;

  constructor(
    private readonly store: Pick<EventStore<E>, 'subscribeToAll'>,
    private readonly options: SubscribeToAllOptions<E>,
    private readonly supervision: Supervision,
  ) {
    this.status = supervision.health.register(supervision.name);
    this.handled = this.checkpointed = options.after;
    this.open(options.after);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.status.state = 'stopped';
    if (this.retry) {
      clearTimeout(this.retry.timer);
      this.retry.resolve();
    }
    await this.current?.stop();
  }

  private open(after: Position | undefined): void {
    let handlerFailed = false;
    const guard = async <T>(action: () => Promise<T> | T): Promise<T> => {
      try {
        return await action();
      } catch (error) {
        handlerFailed = true;
        throw error;
      }
    };
    this.current = this.store.subscribeToAll({
      ...this.options,
      after,
      onEvent: (event) => guard(() => this.handle(event)),
      onCheckpoint: (position) =>
        guard(async () => {
          await this.options.onCheckpoint?.(position);
          this.checkpointed = position;
          this.recovered();
        }),
      onCaughtUp: () => {
        this.status.caughtUp = true;
        if (this.caughtUpSaid) return;
        this.caughtUpSaid = true;
        this.options.onCaughtUp?.();
      },
      onError: (error) => {
        this.options.onError?.(error);
        if (handlerFailed) void this.restart(error);
        else this.status.readError = error.message;
      },
    });
  }

  private async handle(event: RecordedOf<E>): Promise<void> {
    try {
      await this.options.onEvent(event);
    } catch (error) {
      if (!(this.supervision.isPoison ?? isInvalidEventData)(error)) throw error;
      this.park(event, error);
    }
    this.handled = event.position;
    this.status.handledCommit = event.position.commit;
    this.status.lagMs = Math.max(0, Date.now() - Date.parse(event.recordedAt));
    this.recovered();
  }

  private park(event: RecordedOf<E>, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    SubscriptionHealth.park(this.status, {
      eventId: event.eventId,
      type: event.type,
      position: event.position,
      reason,
      at: new Date().toISOString(),
    });
    this.supervision.log?.(`[${this.supervision.name}] parked ${event.type} ${event.eventId}: ${reason}`);
  }

  private recovered(): void {
    this.status.readError = undefined;
    if (this.status.state !== 'retrying') return;
    this.supervision.log?.(`[${this.supervision.name}] resumed after ${this.status.failures} failure(s)`);
    this.status.state = 'running';
    this.status.failures = 0;
    this.status.failingSince = undefined;
  }

  /** Waits out the back-off, then subscribes again from the resume position. */
  private async restart(error: Error): Promise<void> {
    if (this.stopped) return;
    const s = this.status;
    s.failures += 1;
    s.lastError = error.message;
    s.failingSince ??= new Date().toISOString();
    s.state = 'retrying';
    const initial = this.supervision.initialBackoffMs ?? 200;
    const ceiling = Math.min(this.supervision.maxBackoffMs ?? 30_000, initial * 2 ** (s.failures - 1));
    const waitMs = Math.round(ceiling * (0.5 + Math.random() / 2));
    this.supervision.log?.(
      `[${this.supervision.name}] handler failed (${error.message}); resuming in ${waitMs} ms (failure ${s.failures})`,
    );
    await this.current?.stop();
    await new Promise<void>((resolve) => {
      this.retry = { timer: setTimeout(resolve, waitMs), resolve };
    });
    this.retry = undefined;
    if (this.stopped) return;
    const fallback = this.options.onCheckpoint ? this.checkpointed : this.handled;
    this.open(this.supervision.resumeAfter ? this.supervision.resumeAfter() : fallback);
  }
}
