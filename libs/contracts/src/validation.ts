import { z } from 'zod';
import { FieldIssue, ValidationError } from './errors';

/** The project's one validation library, re-exported so every package validates the same way. */
export { z };

/** A custom issue's own dotted code, when its check gave one (`params.code`, e.g. `WORKLOAD.PROBE_PORT_UNKNOWN`). */
function ownCode(issue: z.ZodIssue): string | undefined {
  const code = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Upper-cases and dots a zod issue code: `invalid_type` -> `INVALID_TYPE`; a custom issue's own code as given. */
function issueCode(prefix: string, issue: z.ZodIssue): string {
  return ownCode(issue) ?? `${prefix}.${issue.code.toUpperCase()}`;
}

/** Converts zod issues into field issues with dotted codes under `prefix`. */
export function toFieldIssues(prefix: string, error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.join('.') || '(root)',
    code: issueCode(prefix, issue),
    message: issue.message,
  }));
}

/**
 * Parses `value` with `schema`, or throws a ValidationError with code `code` and one issue per field; when every
 * issue carries the same code of its own, the error takes that code.
 */
export function parseOrThrow<S extends z.ZodTypeAny>(
  schema: S,
  value: unknown,
  code: string,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toFieldIssues(code, result.error);
  const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  const own = new Set(result.error.issues.map(ownCode));
  const [single] = own;
  throw new ValidationError(
    own.size === 1 && single ? single : code,
    `${what} is invalid: ${summary}`,
    issues,
  );
}
