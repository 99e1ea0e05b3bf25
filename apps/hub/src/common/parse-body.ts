import { parseOrThrow, rejectNul } from '@hcn/contracts';
import type { z } from 'zod';

/**
 * Validates a request body once at the edge; bad input (a NUL character anywhere included) becomes a 400 with one
 * dotted code per field.
 */
export function parseBody<S extends z.ZodTypeAny>(schema: S, body: unknown, code: string): z.output<S> {
  rejectNul(body, code, 'Request body');
  return parseOrThrow(schema, body ?? {}, code, 'Request body');
}
