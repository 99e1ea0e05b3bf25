import { z } from 'zod';

/** Schema of an actor. */
export const actorSchema = z.object({
  kind: z.enum(['user', 'agent', 'system']),
  id: z.string().min(1).max(200),
});

/** A stored hash; lenient on purpose: a tampered value is the audit verifier's finding, not a read failure. */
const storedHash = z.string().max(128);

/** Schema of event metadata as written (schema version filled in by the store). */
export const eventMetadataSchema = z.object({
  correlationId: z.string().min(1).max(200),
  causationId: z.string().min(1).max(200),
  actor: actorSchema,
  occurredAt: z.string().datetime({ offset: true }),
  schemaVersion: z.number().int().positive(),
  /** Tamper evidence, written by the store (absent on events stored before it hashed): previous link. */
  prevHash: storedHash.optional(),
  /** sha256(prevHash + content hash), written by the store. */
  hash: storedHash.optional(),
});

/** Schema of an event id: a UUID. */
export const eventIdSchema = z.string().uuid();
