import { exitOnConfigError } from './config';
import { AppName, Logger, createLogger, levelFromEnv } from './logger';
import { startTracing, stopTracing } from './tracing/tracing';

/** Runs `close` once on SIGTERM or SIGINT, then exits 0 (1 if closing failed); exports the last spans first. */
export function onShutdown(log: Logger, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    log.info('stopping ...');
    close()
      .then(stopTracing)
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'failed to stop cleanly');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/**
 * Runs an app's main function with its logger (JSON lines on stdout at LOG_LEVEL, pretty on a terminal; the app's
 * configuration schema reports a bad LOG_LEVEL) after starting tracing when the environment asks for it.
 * Configuration errors exit 2 with their message, other failures exit 1.
 */
export function runMain(app: AppName, main: (log: Logger) => Promise<void>): void {
  let log = createLogger({ app, level: levelFromEnv(process.env) });
  Promise.resolve()
    .then(() => {
      if (startTracing(app, process.env)) log = createLogger({ app, level: levelFromEnv(process.env) });
      return main(log);
    })
    .catch((error: unknown) => {
      exitOnConfigError(error, log);
      log.fatal({ err: error }, 'fatal');
      process.exit(1);
    });
}
