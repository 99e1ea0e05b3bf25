import { z } from '@hcn/contracts';

/** The media type of every error answer (RFC 9457). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Seconds a client is told to wait (`Retry-After`) before trying again after a 503. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * An RFC 9457 problem as the hub answers it: `type` names the dotted code (`urn:hcn:problem:<code, lowercased>`),
 * `title` is that code in words (the same for every occurrence), `detail` this occurrence's message, `instance` the
 * request's path; the dotted `code` and the code-specific `details` are extension members.
 */
export const problemSchema = z
  .looseObject({
    type: z.string().describe('urn:hcn:problem:<the dotted code, lowercased>'),
    title: z.string().describe('the dotted code in words, the same for every occurrence'),
    status: z.number().int().describe('the HTTP status'),
    detail: z.string().describe('what went wrong this time'),
    instance: z.string().describe('the path of the request'),
    code: z.string().describe('stable dotted code, e.g. WORKLOAD.NOT_FOUND'),
    details: z.record(z.string(), z.unknown()).optional().describe('the code-specific details, when any'),
  })
  .meta({ id: 'Problem' });

/** An RFC 9457 problem as the hub answers it (see `problemSchema`). */
export type Problem = z.infer<typeof problemSchema>;

/** The problem type URI of a dotted code: `urn:hcn:problem:quota.exceeded`. */
export function problemType(code: string): string {
  return `urn:hcn:problem:${code.toLowerCase()}`;
}

/** The title of a dotted code: `QUOTA.EXCEEDED` -> "Quota exceeded". */
export function problemTitle(code: string): string {
  const words = code.toLowerCase().split(/[._]+/).filter(Boolean).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The problem body of an error with `code` and `message` answered with `status` at `path`. */
export function problemOf(
  status: number,
  code: string,
  message: string,
  path: string,
  details?: Record<string, unknown>,
): Problem {
  return {
    type: problemType(code),
    title: problemTitle(code),
    status,
    detail: message,
    instance: path,
    code,
    ...(details === undefined ? {} : { details }),
  };
}
