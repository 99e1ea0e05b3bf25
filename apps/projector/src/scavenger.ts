import { EventStore, PostgresEventStore } from '@hcn/eventstore';
import { z } from 'zod';

/** `HCN_SCAVENGE_SECONDS`: how often expired events are deleted from the PostgreSQL store (default 600; 0: off). */
export const scavengeSecondsSchema = z.coerce
  .number({ message: 'HCN_SCAVENGE_SECONDS must be a number of seconds' })
  .min(0, 'HCN_SCAVENGE_SECONDS must be 0 (off) or more')
  .default(600);

/** A running scavenger. */
export interface Scavenger {
  stop(): Promise<void>;
}

/**
 * Every `intervalMs`, deletes the stored events that retention hides (expired heartbeats above all) when the store
 * is PostgreSQL; EventStoreDB scavenges by itself. One pass at a time; each pass that deletes something says so.
 */
export function startScavenger(
  store: EventStore,
  intervalMs: number,
  log: (line: string) => void,
): Scavenger {
  if (!(store instanceof PostgresEventStore) || intervalMs <= 0) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  const pass = async (): Promise<void> => {
    const started = Date.now();
    const result = await store.scavenge((done, total) => {
      if (total > 5_000) log(`[scavenge] ${done.streams}/${total} streams, ${done.deleted} events deleted`);
    });
    if (result.deleted > 0)
      log(
        `[scavenge] deleted ${result.deleted} expired events of ${result.streams} streams in ${Date.now() - started} ms`,
      );
  };
  const timer = setInterval(() => {
    running ??= pass()
      .catch((error: Error) => log(`[scavenge] failed: ${error.message}`))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
