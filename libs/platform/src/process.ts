import { exitOnConfigError } from './config';

/** Runs `close` once on SIGTERM or SIGINT, then exits 0 (1 if closing failed). */
export function onShutdown(name: string, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    console.log(`[${name}] stopping ...`);
    close().then(
      () => process.exit(0),
      (error) => {
        console.error(`[${name}] failed to stop cleanly:`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/** Runs an app's main function: configuration errors exit 2 with their message, other failures exit 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((error) => {
    exitOnConfigError(error);
    console.error(`[${name}] fatal:`, error);
    process.exit(1);
  });
}
