import type { StreamMetadata } from './port';

/** Drops events that a stream's retention metadata hides: older than `maxAge`, or beyond the newest `maxCount`. */
export function applyRetention<E extends { recordedAt: string }>(
  events: readonly E[],
  metadata: StreamMetadata,
  now: Date,
): E[] {
  let kept =
    metadata.maxCount !== undefined
      ? events.slice(Math.max(0, events.length - metadata.maxCount))
      : [...events];
  if (metadata.maxAge !== undefined) {
    const oldest = now.getTime() - metadata.maxAge * 1000;
    kept = kept.filter((e) => Date.parse(e.recordedAt) >= oldest);
  }
  return kept;
}
