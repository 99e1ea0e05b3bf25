import type { RecordedEvent, RecordedHcnEvent } from '@hcn/contracts';

/**
 * Builds recorded events for specs: positions and per-stream revisions in call order. Their data is written by
 * hand (often only the fields a spec needs) and never validated, so they are typed as recorded HCN events here.
 */
export class LogBuilder {
  readonly events: RecordedHcnEvent[] = [];
  private readonly revisions = new Map<string, number>();

  /** Appends one event of `stream` that happened at `at`. */
  add(stream: string, type: string, data: unknown, at: string, actor = 'spec'): RecordedHcnEvent {
    const revision = (this.revisions.get(stream) ?? -1) + 1;
    this.revisions.set(stream, revision);
    const n = BigInt(this.events.length + 1);
    const event: RecordedEvent = {
      eventId: `00000000-0000-4000-8000-${String(this.events.length).padStart(12, '0')}`,
      type,
      streamId: stream,
      revision,
      position: { commit: n, prepare: n },
      recordedAt: at,
      data,
      metadata: {
        correlationId: 'corr',
        causationId: 'cause',
        actor: { kind: 'user', id: actor },
        occurredAt: at,
        schemaVersion: 1,
      },
    };
    const typed = event as RecordedHcnEvent;
    this.events.push(typed);
    return typed;
  }

  /** The events of one stream. */
  stream(stream: string): RecordedHcnEvent[] {
    return this.events.filter((e) => e.streamId === stream);
  }
}
