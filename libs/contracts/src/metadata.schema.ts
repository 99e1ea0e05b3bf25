import { z } from 'zod';

/** Schema of an actor. */
export const actorSchema = z.object({
  kind: z.enum(['user', 'agent', 'system']),
  id: z.string().min(1).max(200),
});

/** Schema of event metadata as written (schema version filled in by the store). */
export const eventMetadataSchema = z.object({
  correlationId: z.string().min(1).max(200),
  causationId: z.string().min(1).max(200),
  actor: actorSchema,
  occurredAt: z.string().datetime({ offset: true }),
  schemaVersion: z.number().int().positive(),
});

/** Schema of an event id: a UUID. */
export const eventIdSchema = z.string().uuid();
