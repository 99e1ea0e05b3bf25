import type { Actor, NewEvent } from '@hcn/contracts';
import { randomUUID } from 'node:crypto';

/** Who asked, why, and when: becomes each event's metadata. */
export interface CommandContext {
  readonly correlationId: string;
  readonly causationId: string;
  readonly actor: Actor;
  readonly now: Date;
  /** W3C trace context of the span the command ran in, when tracing is on (kept in each event's metadata). */
  readonly traceparent?: string;
}

/** A context for a request of `actor`, correlated to itself. */
export function requestContext(actor: Actor, now: Date, requestId: string = randomUUID()): CommandContext {
  return { correlationId: requestId, causationId: requestId, actor, now };
}

/** Wraps decided events (type + data) into new events with ids and the context's metadata. */
export function toNewEvents(
  events: ReadonlyArray<{ type: string; data: unknown }>,
  context: CommandContext,
  newId: () => string = randomUUID,
): NewEvent[] {
  return events.map((event) => ({
    eventId: newId(),
    type: event.type,
    data: event.data,
    metadata: {
      correlationId: context.correlationId,
      causationId: context.causationId,
      actor: context.actor,
      occurredAt: context.now.toISOString(),
      ...(context.traceparent ? { traceparent: context.traceparent } : {}),
    },
  }));
}
