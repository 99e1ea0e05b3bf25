import type { EventStore } from '@hcn/eventstore';
import type { CliContext } from './context';
import { CliError, EXIT } from './errors';

/** The code of an error, when it has a dotted one (HcnError). */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.includes('.') ? code : undefined;
}

/**
 * Opens the event log (DATABASE_URL or EVENTSTORE_URL, as the hub does); a log that is not configured or cannot
 * be reached is exit 3. The store modules load only here, so REST commands start without them.
 */
export async function openLogOrFail(ctx: CliContext): Promise<EventStore> {
  const { openLog } = await import('./store');
  try {
    return await openLog(ctx.io.env);
  } catch (error) {
    const code = codeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      'CLI.LOG_UNREACHABLE',
      `cannot read the event log: ${code ? `${code}: ` : ''}${message}`,
      EXIT.UNREACHABLE,
    );
  }
}

/** Runs `work` with the event log open, and closes it after. */
export async function useLog<T>(ctx: CliContext, work: (store: EventStore) => Promise<T>): Promise<T> {
  const store = await openLogOrFail(ctx);
  try {
    return await work(store);
  } finally {
    await store.close().catch(() => undefined);
  }
}
