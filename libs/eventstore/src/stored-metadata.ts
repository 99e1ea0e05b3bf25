import { EventMetadata, eventMetadataSchema } from '@hcn/contracts';
import { z } from 'zod';

/**
 * Metadata as stored: `schemaVersion` is left out when 1 and `causationId` when it equals `correlationId` (a
 * request correlated to itself); reads fill both back (`fullMetadata`). Metadata written before has both.
 */
export type StoredMetadata = Omit<EventMetadata, 'schemaVersion' | 'causationId'> & {
  readonly schemaVersion?: number;
  readonly causationId?: string;
};

/** Schema of stored metadata (see StoredMetadata), without the hash keys (the chain's links are read apart). */
export const storedMetadataSchema = eventMetadataSchema.extend({
  causationId: eventMetadataSchema.shape.causationId.optional(),
  schemaVersion: eventMetadataSchema.shape.schemaVersion.default(1),
});

/** Written metadata as stored: what reads fill back left out. */
export function storedMetadata(metadata: EventMetadata): StoredMetadata {
  const { schemaVersion, causationId, ...rest } = metadata;
  return {
    ...rest,
    ...(causationId === metadata.correlationId ? {} : { causationId }),
    ...(schemaVersion === 1 ? {} : { schemaVersion }),
  };
}

/** Stored metadata, parsed, in full: the causation id filled back from the correlation id. */
export function fullMetadata(stored: z.output<typeof storedMetadataSchema>): EventMetadata {
  const { causationId = stored.correlationId, ...rest } = stored;
  return { ...rest, causationId };
}
