import type { z } from 'zod';
import { EventRegistry } from '../registry';
import { NODE_EVENTS } from './node.events';

export * from './node.events';

/** Every event type HCN writes, with its schema; the store validates against it on append and on read. */
export const hcnEventRegistry = new EventRegistry([...NODE_EVENTS]);

type Defs = (typeof NODE_EVENTS)[number];
/** Union of every HCN event as `{ type, data }`, for exhaustive switches. */
export type HcnEvent = {
  [D in Defs as D['type']]: { type: D['type']; data: z.output<D['schema']> };
}[Defs['type']];
/** The data of one HCN event type. */
export type EventDataOf<T extends HcnEvent['type']> = Extract<HcnEvent, { type: T }>['data'];
