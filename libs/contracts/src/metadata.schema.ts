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
  /** W3C trace context of the span that appended the event (only when tracing is on). */
  traceparent: z
    .string()
    .regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/)
    .optional(),
});

/** Schema of event metadata as stored: as written plus the store's hash-chain links (absent on older events). */
export const recordedMetadataSchema = eventMetadataSchema.extend({
  /** The previous event's hash in the stream (sha256 of the stream id for the first). */
  prevHash: storedHash.optional(),
  /** sha256(prevHash + content hash). */
  hash: storedHash.optional(),
});

/** Schema of an event id: a UUID. */
export const eventIdSchema = z.string().uuid();

/**
 * Id of the system actor that records the allocations a node loses by going offline or being deregistered (the
 * workload saga's liveness losses): not the node's runtime failing, so a node's runtime state does not count them.
 */
export const NODE_LOSS_ACTOR_ID = 'scheduler';
