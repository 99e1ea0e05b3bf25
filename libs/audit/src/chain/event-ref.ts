import { RecordedEvent, formatPosition } from '@hcn/contracts';
import type { EventRef } from './chain.model';

/** The log coordinates and metadata of a recorded event. */
export function eventRef(event: RecordedEvent): EventRef {
  return {
    eventId: event.eventId,
    type: event.type,
    revision: event.revision,
    position: formatPosition(event.position),
    at: event.metadata.occurredAt,
    recordedAt: event.recordedAt,
    actor: event.metadata.actor,
    correlationId: event.metadata.correlationId,
    causationId: event.metadata.causationId,
  };
}
