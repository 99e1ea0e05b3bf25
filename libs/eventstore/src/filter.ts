import type { EventFilter } from './port';

/** True when the event is a system event (`$`-prefixed type or stream), which `$all` readers never see. */
export function isSystemEvent(type: string, streamId: string): boolean {
  return type.startsWith('$') || streamId.startsWith('$');
}

/** Applies a port filter in memory (used where the backend cannot filter). */
export function matchesFilter(filter: EventFilter | undefined, type: string, streamId: string): boolean {
  if (isSystemEvent(type, streamId)) return false;
  if (!filter) return true;
  const subject = filter.kind === 'streamPrefix' ? streamId : type;
  return filter.prefixes.some((prefix) => subject.startsWith(prefix));
}
