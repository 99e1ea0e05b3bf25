import pino, { DestinationStream, Logger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
import { z } from 'zod';
import { traceLogFields, tracingActive } from './tracing/trace-context';

export type { Logger } from 'pino';

/** Levels LOG_LEVEL takes, most verbose first; `silent` logs nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The processes that log, as each line's `app` names them. */
export type AppName = 'hub' | 'projector' | 'agent' | 'embedded';

/** LOG_LEVEL in an app's configuration schema: one of LOG_LEVELS, `info` when unset or empty. */
export const logLevelSchema = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.enum(LOG_LEVELS, { error: `LOG_LEVEL: one of ${LOG_LEVELS.join(', ')}` }).default('info'),
);

/** What a logger is made of; stdout and the level `info` unless given. */
export interface LoggerOptions {
  readonly app: AppName;
  readonly level?: LogLevel;
  /** Where lines go (a spec's capture); unset: stdout, pretty when it is a terminal and pino-pretty is installed. */
  readonly destination?: DestinationStream;
}

/**
 * A pino logger writing one JSON object per line: `level` (its name), `time` (ISO-8601), `app`, `msg`, plus
 * `trace_id`/`span_id` while a span is active when tracing is on.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { app: options.app },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      ...(tracingActive() ? { mixin: traceLogFields } : {}),
    },
    options.destination ?? stdoutDestination(),
  );
}

/** The level LOG_LEVEL names, or `info` when it names none (its configuration schema then reports it). */
export function levelFromEnv(env: NodeJS.ProcessEnv): LogLevel {
  return LOG_LEVELS.find((level) => level === env.LOG_LEVEL) ?? 'info';
}

/** A `(line) => void` callback that logs each line at `level`, for parts that take one. */
export function lineLogger(
  logger: Logger,
  level: 'info' | 'warn' | 'error' = 'info',
): (line: string) => void {
  return (line) => logger[level](line);
}

function stdoutDestination(): DestinationStream {
  return (process.stdout.isTTY && prettyStream()) || pino.destination({ dest: 1, sync: true });
}

/** pino-pretty when installed (a development dependency: production images log JSON). */
function prettyStream(): DestinationStream | undefined {
  try {
    const build = require('pino-pretty') as (options: PrettyOptions) => DestinationStream;
    return build({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  } catch {
    return undefined;
  }
}
