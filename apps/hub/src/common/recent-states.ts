import type { Known } from './aggregate';

/**
 * States of streams this hub wrote last, by stream id, the oldest forgotten beyond `limit`. Handlers decide on
 * them with `handleOnCached` (an append with the kept revision), which saves reading the stream back.
 */
export class RecentStates<S> {
  private readonly states = new Map<string, Known<S>>();

  constructor(private readonly limit = 10_000) {}

  /** The state kept for a stream, if any. */
  get(streamId: string): Known<S> | undefined {
    return this.states.get(streamId);
  }

  /** Keeps a stream's state as of a revision this hub just wrote or read. */
  remember(streamId: string, known: Known<S>): void {
    this.states.delete(streamId);
    this.states.set(streamId, { state: known.state, revision: known.revision });
    if (this.states.size > this.limit) this.states.delete(this.states.keys().next().value as string);
  }
}
