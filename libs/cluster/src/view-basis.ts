import {
  DecisionBasisRecord,
  Position,
  comparePositions,
  formatOffsetRuns,
  formatPosition,
  inOffsetRuns,
  lastOffsetOfRuns,
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

/** Whether a recorded basis includes the cluster event at `position` of stream `node-<nodeId>` (else undefined). */
export function basisIncludes(basis: DecisionBasisRecord, position: Position, nodeId?: string): boolean {
  const [commit, prepare] = basis.at.split('/').map(BigInt);
  if (comparePositions(position, { commit, prepare }) <= 0) return true;
  const offset = Number(position.commit - commit);
  if (basis.ahead !== undefined && inOffsetRuns(basis.ahead, offset)) return true;
  const partial = basis.partial?.find((p) => p[0] === offset);
  return partial !== undefined && nodeId !== undefined && partial.slice(1).includes(nodeId);
}

/** The last position a basis reaches: events beyond it cannot be part of it. */
export function basisEnd(basis: DecisionBasisRecord): bigint {
  const [commit] = basis.at.split('/').map(BigInt);
  const offsets = [lastOffsetOfRuns(basis.ahead), ...(basis.partial ?? []).map((p) => p[0])];
  return commit + BigInt(Math.max(0, ...offsets));
}
