import { ValidationError } from '@hcn/contracts';
import { eventually, sleep } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { SubscriptionHealth } from '../subscription-health';
import { superviseSubscription } from '../supervised-subscription';
import { TestEventStore, numberOf, thing } from './test-events';

const n = numberOf;

/** A supervised subscription over the adapter: failures resume from the checkpoint, poison is parked. */
export function supervisedSubscriptionContract(getStore: () => TestEventStore): void {
  const fast = { initialBackoffMs: 20, maxBackoffMs: 100 };

  it('resumes after a failing handler from where it was: nothing lost, nothing before it repeated', async () => {
    const store = getStore();
    const prefix = `c-sup-${randomUUID().slice(0, 6)}`;
    await store.append(`${prefix}-1`, [thing(1), thing(2), thing(3)], 'no_stream');
    const health = new SubscriptionHealth();
    const handled: number[] = [];
    let failuresLeft = 3;
    let sawRetrying = false;
    const subscription = superviseSubscription(
      store,
      {
        filter: { kind: 'streamPrefix', prefixes: [prefix] },
        onEvent: (e) => {
          if (n(e) === 2 && failuresLeft-- > 0) throw new Error('projection table is locked');
          handled.push(n(e));
        },
      },
      { name: 'spec', health, ...fast },
    );
    try {
      await eventually('failing seen', () => (sawRetrying ||= health.failing().length === 1));
      expect(health.failing()[0]).toMatchObject({ name: 'spec', lastError: 'projection table is locked' });
      await eventually('all handled', () => handled.length === 3, 5000);
      await store.append(`${prefix}-1`, [thing(4)], 2);
      await eventually('live event', () => handled.length === 4);
      await sleep(200);
      expect(handled).toEqual([1, 2, 3, 4]);
      expect(health.statuses()[0]).toMatchObject({ state: 'running', failures: 0, parkedCount: 0 });
    } finally {
      await subscription.stop();
    }
    expect(health.statuses()[0].state).toBe('stopped');
  });

  it('parks an event whose data is invalid, with its reason, and goes on', async () => {
    const store = getStore();
    const prefix = `c-poison-${randomUUID().slice(0, 6)}`;
    await store.append(`${prefix}-1`, [thing(1), thing(2), thing(3)], 'no_stream');
    const health = new SubscriptionHealth();
    const handled: number[] = [];
    const subscription = superviseSubscription(
      store,
      {
        filter: { kind: 'streamPrefix', prefixes: [prefix] },
        onEvent: (e) => {
          if (n(e) === 2) throw new ValidationError('EVENT.SCHEMA_INVALID', 'n must be odd', []);
          handled.push(n(e));
        },
      },
      { name: 'poison', health, ...fast },
    );
    try {
      await eventually('the rest handled', () => handled.length === 2);
      expect(handled).toEqual([1, 3]);
      const status = health.statuses()[0];
      expect(status).toMatchObject({ state: 'running', parkedCount: 1 });
      expect(status.parked[0]).toMatchObject({ type: 'ThingHappened', reason: 'n must be odd' });
      expect(health.failing()).toEqual([]);
    } finally {
      await subscription.stop();
    }
  });

  it('retries a failing checkpoint like a failing handler', async () => {
    const store = getStore();
    const prefix = `c-ckpt-${randomUUID().slice(0, 6)}`;
    await store.append(`${prefix}-1`, [thing(1)], 'no_stream');
    const health = new SubscriptionHealth();
    let checkpointFailures = 2;
    let saved = 0;
    const handled: number[] = [];
    const subscription = superviseSubscription(
      store,
      {
        filter: { kind: 'streamPrefix', prefixes: [prefix] },
        onEvent: (e) => void handled.push(n(e)),
        onCheckpoint: () => {
          if (checkpointFailures-- > 0) throw new Error('checkpoint table unavailable');
          saved += 1;
        },
      },
      { name: 'checkpoint', health, ...fast },
    );
    try {
      await eventually('a checkpoint saved', () => saved > 0, 5000);
      expect(health.statuses()[0]).toMatchObject({ state: 'running', failures: 0 });
      expect(handled.every((x) => x === 1)).toBe(true);
    } finally {
      await subscription.stop();
    }
  });
}
