import type { NewEvent, Position } from '@hcn/contracts';
import type { CommandContext } from './command-context';

/** A folded state and the revision it was folded to (-1: no stream yet). */
export interface Known<S> {
  readonly state: S;
  readonly revision: number;
}

/** A command handled: the events it caused (as decided and as appended), the state and revision after them. */
export interface Handled<E, S> extends Known<S> {
  readonly events: E[];
  /** The events as appended, with their ids and metadata (empty when nothing was decided). */
  readonly appended: readonly NewEvent[];
}

/** How an engine treats its streams; the defaults read every stream afresh and retry a conflict five times. */
export interface EngineOptions<E = unknown> {
  /** Appends tried on freshly read state before a concurrency conflict reaches the caller (default 5). */
  readonly maxAttempts?: number;
  /**
   * Keep the state of up to this many streams as this engine last appended or read them, and decide on that first
   * (no read). Only a decision that appends is trusted there; a refusal or a no-op is decided again on the stream.
   */
  readonly cachedStreams?: number;
  /** Queue a stream's commands while its append is in flight; then decide them on one state, append them at once. */
  readonly groupCommit?: boolean;
  /** Wait a random few milliseconds after a conflict before retrying (streams several hubs write at once). */
  readonly jitter?: boolean;
  /**
   * Told of every append this engine made, right after the store took it: the stream, its events as decided, and
   * the revision the store gave the first (a fold kept in step with the log without waiting for a subscription),
   * and the log position of the last (the events of one append share its `commit`).
   */
  readonly onAppended?: (
    streamId: string,
    events: readonly E[],
    firstRevision: number,
    position: Position,
  ) => void;
}

/** One command with the context its events carry. */
export interface ContextualCommand<C> {
  readonly command: C;
  readonly context: CommandContext;
}

/** The commands of one stream for `handleMany`, in order. */
export interface StreamCommands<C> {
  readonly streamId: string;
  readonly commands: ReadonlyArray<ContextualCommand<C>>;
}

/** What `handleMany` did on one stream: the state after it (when known) and the commands refused. */
export interface StreamOutcome<S> {
  readonly known?: Known<S>;
  readonly refused: ReadonlyArray<{ readonly index: number; readonly error: unknown }>;
}
