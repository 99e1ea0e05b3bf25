import { EventRegistry, NewEvent, RecordedOf, defineEvent, z } from '@hcn/contracts';
import type { EventStore } from '../port';
import { randomUUID } from 'node:crypto';

/** Event types used only by the event-store specs and benchmarks. */
export const testEventRegistry = new EventRegistry([
  defineEvent('ThingHappened', 1, z.object({ n: z.number().int(), note: z.string().optional() })),
  defineEvent('OtherThingHappened', 1, z.object({ label: z.string() })),
]);

/** The events of `testEventRegistry`. */
export type TestEvent =
  | { type: 'ThingHappened'; data: { n: number; note?: string } }
  | { type: 'OtherThingHappened'; data: { label: string } };
/** A store holding the events of `testEventRegistry`. */
export type TestEventStore = EventStore<TestEvent>;

/** The number a ThingHappened carries (NaN for an OtherThingHappened). */
export function numberOf(event: RecordedOf<TestEvent>): number {
  return event.type === 'ThingHappened' ? event.data.n : Number.NaN;
}

/** The label an OtherThingHappened carries (a ThingHappened has none). */
export function labelOf(event: RecordedOf<TestEvent>): string | undefined {
  return event.type === 'OtherThingHappened' ? event.data.label : undefined;
}

/** A valid ThingHappened event with a fresh id. */
export function thing(n: number, note?: string): NewEvent {
  return {
    eventId: randomUUID(),
    type: 'ThingHappened',
    data: note === undefined ? { n } : { n, note },
    metadata: {
      correlationId: 'corr-1',
      causationId: 'cause-1',
      actor: { kind: 'system', id: 'spec' },
      occurredAt: '2026-11-22T00:00:00.000Z',
    },
  };
}

/** A valid OtherThingHappened event with a fresh id. */
export function otherThing(label: string): NewEvent {
  return { ...thing(0), type: 'OtherThingHappened', data: { label } };
}

/** A stream id unique to one test. */
export function uniqueStream(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
