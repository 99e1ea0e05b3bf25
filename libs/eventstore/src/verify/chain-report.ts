/** Why a link of a stream's hash chain is broken. */
export type BrokenReason =
  /** The stored hash is not sha256(prevHash + content hash): the content, or the hash itself, was changed. */
  | 'content'
  /** prevHash is not the previous event's hash (an event was changed, inserted, replaced or reordered). */
  | 'link'
  /** Revisions skip: events are missing from a stream without retention (deleted rows). */
  | 'gap'
  /** A stream without retention does not start at revision 0: its head was deleted. */
  | 'head-missing'
  /** An event without hash keys follows hashed events (its hash was stripped). */
  | 'missing-hash';

/** One broken link: the event where the chain stops holding. */
export interface BrokenLink {
  readonly streamId: string;
  readonly revision: number;
  readonly eventId: string;
  /** Global position, `commit/prepare`. */
  readonly position: string;
  readonly recordedAt: string;
  readonly reason: BrokenReason;
  /** What the chain requires at this point (a hash, or a revision for gaps). */
  readonly expected: string;
  /** What is stored. */
  readonly actual: string;
}

/** A stream whose check began after its first event, trusting that event's prevHash. */
export interface MidStreamStart {
  readonly streamId: string;
  readonly revision: number;
  readonly eventId: string;
  /** 'head-expired': retention hid the events before it; 'retention-gap': retention hid events in between. */
  readonly reason: 'head-expired' | 'retention-gap';
  readonly trustedPrevHash: string;
}

/** Outcome of verifyHashChain. */
export interface HashChainReport {
  /** True when no link is broken. */
  readonly ok: boolean;
  readonly streamId?: string;
  readonly from?: string;
  readonly to?: string;
  /** Streams with at least one event checked. */
  readonly streamsChecked: number;
  /** Hashed events whose links were checked (recorded within the period). */
  readonly eventsChecked: number;
  /** Events stored before the store hashed (no hash keys, before any hashed event of their stream). */
  readonly unhashedEvents: number;
  /** The first broken link in log order. */
  readonly firstBroken?: BrokenLink;
  /** Broken links in log order (at most MAX_LISTED); each later event is checked against what was stored. */
  readonly broken: BrokenLink[];
  readonly brokenCount: number;
  /** Streams checked from a later event than their first (at most MAX_LISTED). */
  readonly startedMidStream: MidStreamStart[];
  readonly startedMidStreamCount: number;
}

/** Progress of a verification, reported once per page read. */
export interface VerifyProgress {
  readonly eventsScanned: number;
  readonly eventsChecked: number;
  /** Rough size of the log when the store can tell (for a progress bar). */
  readonly approximateTotal?: number;
}

/** How many broken links and mid-stream starts a report lists (it counts all). */
export const MAX_LISTED = 100;
