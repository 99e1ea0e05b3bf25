import { z } from 'zod';
import { delegationIdSchema } from './delegation.schemas';
import { namespaceSchema } from './resources.schemas';
import { siteIdSchema } from './site.events';

/** A hash of a stream's chain: sha256, lowercase hex. */
export const chainHashSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** Most events one site hands another for one delegated workload. */
export const MAX_SITE_CHAIN_EVENTS = 50_000;

/**
 * What a site asks another for (`POST /v1/federation/delegations/:id/chain`, signed like a delegation request):
 * the stream of the workload the answering site runs for delegation `delegationId` of namespace `namespace`.
 * `siteId` is the asking site (the key the request is signed with is the one the two share).
 */
export const siteChainRequestSchema = z
  .object({ siteId: siteIdSchema, delegationId: delegationIdSchema, namespace: namespaceSchema })
  .strict();

/** A request for a delegated workload's stream. */
export type SiteChainRequest = z.output<typeof siteChainRequestSchema>;

/**
 * A stored event as one site hands it to another: exactly what its store keeps (the stored form the hash chain
 * covers, with `prevHash` and `hash` in the metadata), its revision in its stream, position (`commit/prepare`) and
 * recording time. The receiver checks the links itself and decodes the event with its own registry.
 */
export const storedEventWireSchema = z
  .object({
    eventId: z.string().max(100),
    type: z.string().max(200),
    revision: z.number().int().nonnegative(),
    position: z.string().regex(/^\d+\/\d+$/),
    recordedAt: z.string().max(40),
    data: z.unknown(),
    metadata: z.unknown(),
  })
  .strict();

/** A stored event as sent between sites. */
export type StoredEventWire = z.output<typeof storedEventWireSchema>;

/** The head of a stream: its last revision and that event's hash. */
export const streamHeadSchema = z
  .object({ revision: z.number().int().nonnegative(), hash: chainHashSchema })
  .strict();

/** The head of a stream. */
export type StreamHead = z.output<typeof streamHeadSchema>;

/**
 * A site's answer for one delegated workload: who answers, the delegation, its own workload id and stream, the
 * stream's head (revision, hash) and every stored event of the stream, so the asking site can recompute the hash
 * chain from the stream's genesis to the head and rebuild the workload's chain from the same events.
 */
export const siteChainPartSchema = z
  .object({
    siteId: siteIdSchema,
    delegationId: delegationIdSchema,
    workloadId: z.string().uuid(),
    streamId: z.string().max(500),
    head: streamHeadSchema,
    events: z.array(storedEventWireSchema).max(MAX_SITE_CHAIN_EVENTS),
  })
  .strict();

/** A site's answer for one delegated workload. */
export type SiteChainPart = z.output<typeof siteChainPartSchema>;
