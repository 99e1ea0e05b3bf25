import { formatPosition } from '@hcn/contracts';
import type { RawEvent } from '../codec';
import { chainHash, contentHash, genesisHash } from '../hash-chain';
import type { BrokenLink, BrokenReason, HashChainReport, MidStreamStart } from './chain-report';
import { MAX_LISTED } from './chain-report';

/** What the checker remembers of a stream: its last revision and the hashes its next prevHash may be. */
interface StreamState {
  readonly revision: number;
  readonly hashed: boolean;
  readonly accept: readonly string[];
}

/** Tells whether a stream has retention (its events may be hidden legitimately). */
export type HasRetention = (streamId: string) => Promise<boolean>;

/** The period checked: events recorded outside it only anchor the chain. */
export interface Period {
  readonly from?: Date;
  readonly to?: Date;
}

/** Checks stored events, in log order, against their streams' hash chains. */
export class ChainChecker {
  private readonly streams = new Map<string, StreamState>();
  private readonly checkedStreams = new Set<string>();
  private readonly broken: BrokenLink[] = [];
  private readonly midStream: MidStreamStart[] = [];
  private brokenCount = 0;
  private midStreamCount = 0;
  private unhashed = 0;
  private lastReported: string | undefined;
  /** Hashed events whose links were checked. */
  eventsChecked = 0;

  constructor(
    private readonly period: Period,
    private readonly hasRetention: HasRetention,
  ) {}

  /** Checks one event; events must come in log order (each stream's in revision order). */
  async check(event: RawEvent): Promise<void> {
    const meta = asRecord(event.metadata);
    const hash = typeof meta.hash === 'string' ? meta.hash : undefined;
    const prevHash = typeof meta.prevHash === 'string' ? meta.prevHash : undefined;
    const state = this.streams.get(event.streamId);
    const inPeriod = this.inPeriod(event.recordedAt);
    if (hash === undefined || prevHash === undefined) return this.unhashedEvent(event, state, inPeriod);
    if (!inPeriod) {
      this.streams.set(event.streamId, { revision: event.revision, hashed: true, accept: [hash] });
      return;
    }
    this.eventsChecked++;
    this.checkedStreams.add(event.streamId);
    const accept = await this.expectedPrev(event, state, prevHash);
    const recomputed = chainHash(prevHash, contentHash(event));
    if (!accept.includes(prevHash)) this.report(event, 'link', accept[0], prevHash);
    else if (recomputed !== hash) this.report(event, 'content', recomputed, hash);
    const next = recomputed === hash ? [hash] : [hash, recomputed];
    this.streams.set(event.streamId, { revision: event.revision, hashed: true, accept: next });
  }

  /** The report so far. */
  summary(scope: { streamId?: string; from?: string; to?: string }): HashChainReport {
    return {
      ok: this.brokenCount === 0,
      ...scope,
      streamsChecked: this.checkedStreams.size,
      eventsChecked: this.eventsChecked,
      unhashedEvents: this.unhashed,
      ...(this.broken[0] ? { firstBroken: this.broken[0] } : {}),
      broken: [...this.broken],
      brokenCount: this.brokenCount,
      startedMidStream: [...this.midStream],
      startedMidStreamCount: this.midStreamCount,
    };
  }

  /** The hashes prevHash may be: the previous event's, the genesis hash, or its own when the head is hidden. */
  private async expectedPrev(
    event: RawEvent,
    state: StreamState | undefined,
    prevHash: string,
  ): Promise<readonly string[]> {
    if (state && !state.hashed) return [genesisHash(event.streamId)];
    if (!state && event.revision === 0) return [genesisHash(event.streamId)];
    if (state && event.revision === state.revision + 1) return state.accept;
    if (!(await this.hasRetention(event.streamId))) {
      const expected = state ? String(state.revision + 1) : '0';
      this.report(
        event,
        state ? 'gap' : 'head-missing',
        `revision ${expected}`,
        `revision ${event.revision}`,
      );
      return [prevHash];
    }
    this.midStreamCount++;
    if (this.midStream.length < MAX_LISTED) {
      this.midStream.push({
        streamId: event.streamId,
        revision: event.revision,
        eventId: event.eventId,
        reason: state ? 'retention-gap' : 'head-expired',
        trustedPrevHash: prevHash,
      });
    }
    return [prevHash];
  }

  private unhashedEvent(event: RawEvent, state: StreamState | undefined, inPeriod: boolean): void {
    if (inPeriod && state?.hashed) {
      this.checkedStreams.add(event.streamId);
      this.report(event, 'missing-hash', 'prevHash and hash', 'none');
    } else if (inPeriod) this.unhashed++;
    const accept = state?.accept ?? [];
    this.streams.set(event.streamId, { revision: event.revision, hashed: state?.hashed ?? false, accept });
  }

  /** Records a broken link; an event counts once (its first finding). */
  private report(event: RawEvent, reason: BrokenReason, expected: string, actual: string): void {
    if (this.lastReported === event.eventId) return;
    this.lastReported = event.eventId;
    this.brokenCount++;
    if (this.broken.length >= MAX_LISTED) return;
    this.broken.push({
      streamId: event.streamId,
      revision: event.revision,
      eventId: event.eventId,
      position: formatPosition(event.position),
      recordedAt: event.recordedAt,
      reason,
      expected,
      actual,
    });
  }

  private inPeriod(recordedAt: string): boolean {
    const at = Date.parse(recordedAt);
    if (this.period.from && at < this.period.from.getTime()) return false;
    return !(this.period.to && at > this.period.to.getTime());
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
