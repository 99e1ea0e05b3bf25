import type { EventStore } from '@hcn/eventstore';
import { openEventStore } from '@hcn/platform';
import { CliError, EXIT } from './errors';

/**
 * Opens the event log the way the hub does: EventStoreDB when EVENTSTORE_URL is set, else the PostgreSQL
 * store at DATABASE_URL. The audit commands read the log directly (no hub, no read models), so they need those
 * credentials.
 */
export async function openLog(env: NodeJS.ProcessEnv = process.env): Promise<EventStore> {
  const databaseUrl = env.DATABASE_URL ?? '';
  if (!env.EVENTSTORE_URL && !databaseUrl) {
    throw new CliError(
      'CLI.NO_EVENT_STORE',
      'Set DATABASE_URL (PostgreSQL event store) or EVENTSTORE_URL',
      EXIT.UNREACHABLE,
    );
  }
  return openEventStore({ databaseUrl, eventStoreUrl: env.EVENTSTORE_URL });
}
