import type { z } from 'zod';
import { EventRegistry } from '../registry';
import type { RecordedEvent, RecordedOf } from '../envelope';
import { ADMISSION_EVENTS } from './admission.events';
import { DOMAIN_EVENTS } from './domain.events';
import { NODE_EVENTS } from './node.events';
import { QUOTA_EVENTS } from './quota.events';
import { SITE_EVENTS } from './site.events';
import { TASKQUEUE_EVENTS } from './taskqueue.events';
import { TEMPLATE_EVENTS } from './template.events';
import { WORKLOAD_EVENTS } from './workload.events';

export * from './node.events';
export * from './resources.schemas';
export * from './domain.events';
export * from './quota.events';
export * from './workload.spec';
export * from './container.spec';
export * from './service.spec';
export * from './model.spec';
export * from './workload.events';
export * from './decision.record';
export * from './decision.stored';
export * from './template.events';
export * from './admission.events';
export * from './taskqueue.events';
export * from './site.events';
export * from './delegation.schemas';
export * from './delegation-status.schemas';
export * from './site-chain.schemas';

const ALL_EVENTS = [
  ...NODE_EVENTS,
  ...DOMAIN_EVENTS,
  ...QUOTA_EVENTS,
  ...WORKLOAD_EVENTS,
  ...TEMPLATE_EVENTS,
  ...ADMISSION_EVENTS,
  ...TASKQUEUE_EVENTS,
  ...SITE_EVENTS,
];

/** Every event type HCN writes, with its schema; the store validates against it on append and on read. */
export const hcnEventRegistry = new EventRegistry(ALL_EVENTS);

type Defs = (typeof ALL_EVENTS)[number];
/** Union of every HCN event as `{ type, data }`, for exhaustive switches. */
export type HcnEvent = {
  [D in Defs as D['type']]: { type: D['type']; data: z.output<D['schema']> };
}[Defs['type']];
/** The data of one HCN event type. */
export type EventDataOf<T extends HcnEvent['type']> = Extract<HcnEvent, { type: T }>['data'];

/** Every HCN event as the store returns it: `e.type === 'X'` narrows `e.data` to X's data. */
export type RecordedHcnEvent = RecordedOf<HcnEvent>;
/** The HCN events of the types `T` as recorded (a union over `T`: `e.type` narrows `e.data`). */
export type RecordedEventOf<T extends HcnEvent['type']> = T extends unknown
  ? RecordedEvent<T, EventDataOf<T>>
  : never;

/** Narrows a recorded event to one type, with its data typed (the store validated it against that schema on read). */
export function isEventOf<T extends HcnEvent['type']>(
  event: RecordedEvent | undefined,
  type: T,
): event is RecordedEventOf<T> {
  return event?.type === type;
}

/** True for a recorded event of one of `types` (a record keyed by each type once, so the compiler checks the list). */
export function isEventOfTypes<T extends HcnEvent['type']>(
  event: RecordedHcnEvent,
  types: Readonly<Record<T, unknown>>,
): event is RecordedEventOf<T> {
  return Object.hasOwn(types, event.type);
}
