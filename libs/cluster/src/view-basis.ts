import {
  DecisionBasisRecord,
  Position,
  comparePositions,
  formatOffsetRuns,
  formatPosition,
  offsetInRuns,
  parseOffsetRuns,
  parsePosition,
} from '@hcn/contracts';

/** One commit applied ahead of the log: the node streams of it applied, and whether some were not. */
interface AheadCommit {
  readonly nodes: Set<string>;
  partial: boolean;
}

/**
 * What a fold has applied, as a decision records it (its basis): the position of the last event the log brought
 * (everything up to it applied, in log order), and the commits of appends applied before the log brought them back
 * (their node streams; `partial` when some stream of the same commit could not be applied yet). Replaying the log up
 * to `at` plus those commits rebuilds exactly the state the fold had.
 */
export class ViewBasis {
  private at: Position = { commit: 0n, prepare: 0n };
  private readonly ahead = new Map<bigint, AheadCommit>();

  /** The log brought an event at `position` (in log order); commits it has passed are no longer ahead. */
  delivered(position: Position): void {
    if (comparePositions(position, this.at) <= 0) return;
    this.at = position;
    for (const commit of this.ahead.keys()) if (commit < position.commit) this.ahead.delete(commit);
  }

  /** An append to `nodeId` at `position` was applied ahead of the log (`applied`), or could not be (false). */
  appended(nodeId: string, position: Position, applied: boolean): void {
    if (position.commit < this.at.commit) return;
    const entry = this.ahead.get(position.commit) ?? { nodes: new Set<string>(), partial: false };
    if (applied) entry.nodes.add(nodeId);
    else entry.partial = true;
    this.ahead.set(position.commit, entry);
  }

  /** The basis to record with a decision taken now. */
  record(): DecisionBasisRecord {
    const ahead: number[] = [];
    const partial: Array<[number, ...string[]]> = [];
    for (const [commit, entry] of [...this.ahead].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (entry.nodes.size === 0) continue;
      const offset = Number(commit - this.at.commit);
      if (entry.partial) partial.push([offset, ...[...entry.nodes].sort()]);
      else ahead.push(offset);
    }
    return {
      at: formatPosition(this.at),
      ...(ahead.length > 0 ? { ahead: formatOffsetRuns(ahead) } : {}),
      ...(partial.length > 0 ? { partial } : {}),
    };
  }
}

/**
 * A recorded basis parsed once, for testing every event of a replay's scan against it (parsing the record per event
 * took a quarter of an explanation's CPU).
 */
export class RecordedBasis {
  /** The last commit the basis reaches: events beyond it cannot be part of it. */
  readonly end: bigint;
  /** The log position the deciding view had reached: every cluster event up to it is part of the basis. */
  readonly at: Position;
  private readonly ahead: ReadonlyArray<readonly [number, number]>;
  private readonly partial: ReadonlyMap<number, ReadonlySet<string>>;

  constructor(basis: DecisionBasisRecord) {
    this.at = parsePosition(basis.at);
    this.ahead = parseOffsetRuns(basis.ahead);
    const partial = basis.partial ?? [];
    this.partial = new Map(partial.map(([offset, ...nodes]) => [offset, new Set(nodes)]));
    const lastAhead = this.ahead.length > 0 ? this.ahead[this.ahead.length - 1][1] : -1;
    this.end = this.at.commit + BigInt(Math.max(0, lastAhead, ...partial.map((p) => p[0])));
  }

  /** Whether the basis includes the cluster event at `position` (`nodeId`: its node, when a node stream's). */
  includes(position: Position, nodeId?: string): boolean {
    if (comparePositions(position, this.at) <= 0) return true;
    const offset = Number(position.commit - this.at.commit);
    if (offsetInRuns(this.ahead, offset)) return true;
    return nodeId !== undefined && (this.partial.get(offset)?.has(nodeId) ?? false);
  }
}
