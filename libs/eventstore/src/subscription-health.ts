import type { Position } from '@hcn/contracts';

/** An event a supervised subscription set aside instead of retrying it forever. */
export interface ParkedEvent {
  readonly eventId: string;
  readonly type: string;
  readonly position: Position;
  readonly reason: string;
  readonly at: string;
}

/** What one supervised subscription is doing. */
export interface SubscriptionStatus {
  readonly name: string;
  /** `retrying`: its handler failed and it waits to resume from its checkpoint. */
  readonly state: 'running' | 'retrying' | 'stopped';
  readonly caughtUp: boolean;
  /** Handler failures in a row (0 once an event or checkpoint went through again). */
  readonly failures: number;
  readonly lastError?: string;
  readonly failingSince?: string;
  /** The last read of the log that failed, while reads fail (the subscription retries them itself). */
  readonly readError?: string;
  /** From the last handled event's append to its handling. */
  readonly lagMs: number;
  /** Commit position of the last event handled (what its state reflects), once one was. */
  readonly handledCommit?: bigint;
  readonly parkedCount: number;
  /** The most recent parked events (at most 20). */
  readonly parked: readonly ParkedEvent[];
}

const PARKED_KEPT = 20;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The supervised subscriptions of one process: readiness and metrics read them here. */
export class SubscriptionHealth {
  private readonly byName = new Map<string, Mutable<SubscriptionStatus>>();

  /** Adds (or resets) a subscription's status; the supervisor keeps it current. */
  register(name: string): Mutable<SubscriptionStatus> {
    const status: Mutable<SubscriptionStatus> = {
      name,
      state: 'running',
      caughtUp: false,
      failures: 0,
      lagMs: 0,
      parkedCount: 0,
      parked: [],
    };
    this.byName.set(name, status);
    return status;
  }

  /** Records a parked event on a status (newest kept). */
  static park(status: Mutable<SubscriptionStatus>, parked: ParkedEvent): void {
    status.parkedCount += 1;
    status.parked = [...status.parked, parked].slice(-PARKED_KEPT);
  }

  /** Every subscription's status. */
  statuses(): SubscriptionStatus[] {
    return [...this.byName.values()].map((s) => ({ ...s }));
  }

  /** The subscriptions whose handler is failing now. */
  failing(): SubscriptionStatus[] {
    return this.statuses().filter((s) => s.state === 'retrying');
  }
}
