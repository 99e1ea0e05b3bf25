import { z } from 'zod';
import { FieldIssue, ValidationError } from './errors';

/** The project's one validation library, re-exported so every package validates the same way. */
export { z };

/** Upper-cases and dots a zod issue code: `invalid_type` -> `INVALID_TYPE`. */
function issueCode(prefix: string, issue: z.ZodIssue): string {
  return `${prefix}.${issue.code.toUpperCase()}`;
}

/** Converts zod issues into field issues with dotted codes under `prefix`. */
export function toFieldIssues(prefix: string, error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.join('.') || '(root)',
    code: issueCode(prefix, issue),
    message: issue.message,
  }));
}

/** Parses `value` with `schema`, or throws a ValidationError with code `code` and one issue per field. */
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
  throw new ValidationError(code, `${what} is invalid: ${summary}`, issues);
}
