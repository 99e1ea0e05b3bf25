import { EventMetadata, HcnError, eventMetadataSchema } from '@hcn/contracts';

/**
 * Metadata as stored: `schemaVersion` is left out when 1, `correlationId` when it is the workload the event's data
 * names (`workloadId`: a workload's events are correlated by it), `causationId` when it equals the correlation (a
 * request correlated to itself); reads fill them back (`fullMetadata`). Metadata written before has all three.
 */
export type StoredMetadata = Omit<EventMetadata, 'schemaVersion' | 'correlationId' | 'causationId'> & {
  readonly schemaVersion?: number;
  readonly correlationId?: string;
  readonly causationId?: string;
};

/** Schema of stored metadata (see StoredMetadata), without the hash keys (the chain's links are read apart). */
export const storedMetadataSchema = eventMetadataSchema.extend({
  correlationId: eventMetadataSchema.shape.correlationId.optional(),
  causationId: eventMetadataSchema.shape.causationId.optional(),
  schemaVersion: eventMetadataSchema.shape.schemaVersion.optional(),
});

/** Written metadata as stored, for an event with `data`: what reads fill back left out. */
export function storedMetadata(metadata: EventMetadata, data: unknown): StoredMetadata {
  const { schemaVersion, correlationId, causationId, ...rest } = metadata;
  return {
    ...rest,
    ...(correlationId === workloadOf(data) ? {} : { correlationId }),
    ...(causationId === correlationId ? {} : { causationId }),
    ...(schemaVersion === 1 ? {} : { schemaVersion }),
  };
}

/** Stored metadata of an event with `data` in full: correlation, causation and schema version filled back. */
export function fullMetadata(stored: StoredMetadata, data: unknown): EventMetadata {
  const correlationId = stored.correlationId ?? workloadOf(data);
  if (correlationId === undefined)
    throw new HcnError(
      'EVENT.METADATA_INVALID',
      'Stored metadata without a correlation id, and no workload to imply it',
    );
  return {
    ...stored,
    correlationId,
    causationId: stored.causationId ?? correlationId,
    schemaVersion: stored.schemaVersion ?? 1,
  };
}

/** The workload an event's data names, if any. */
function workloadOf(data: unknown): string | undefined {
  const named = typeof data === 'object' && data !== null && 'workloadId' in data;
  return named && typeof data.workloadId === 'string' ? data.workloadId : undefined;
}
