import { EventRegistry } from '../registry';

/** Every event type HCN writes, with its schema; the store validates against it on append and on read. */
export const hcnEventRegistry = new EventRegistry([]);
