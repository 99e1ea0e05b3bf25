import { SetupError } from './setup-error';
import { HcnError, toFieldIssues } from '@hcn/contracts';
import { z } from 'zod';

/** Configuration was invalid at start-up; the message lists every offending variable. */
export class ConfigError extends HcnError {
  constructor(what: string, problems: string[]) {
    super('CONFIG.INVALID', `Invalid ${what} configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`, {
      problems,
    });
  }
}

/** Parses configuration with a schema, or throws ConfigError naming each bad setting. */
export function parseConfig<S extends z.ZodTypeAny>(what: string, schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(
    what,
    toFieldIssues('CONFIG', result.error).map((i) => `${i.path}: ${i.message}`),
  );
}

/** Comma-separated list of host:port pairs. */
export const brokerListSchema = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[^:\s]+:\d{1,5}$/, 'expected host:port')).min(1));

/** A number from an environment variable. */
export const envNumber = (fallback: number) => z.coerce.number().finite().default(fallback);

/** A boolean from an environment variable (`true`/`false`/`1`/`0`). */
export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

/** Logs a configuration error and exits with status 2 (used by every app's entry point); rethrows any other. */
export function exitOnConfigError(error: unknown, log: { fatal(message: string): void }): void {
  if (error instanceof ConfigError || error instanceof SetupError) {
    log.fatal(error.message);
    process.exit(2);
  }
}
