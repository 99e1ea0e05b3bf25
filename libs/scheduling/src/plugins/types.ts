import type { CompiledRequest } from '../constraints';
import type { DeviceChoice } from '../devices/choose-devices';
import type { DeviceRequest } from '../model';
import type { Candidate, DomainState, NodeState } from '../tree/states';

/** Why a filter rejected a candidate: a dotted reason code and a human detail. */
export interface Rejection {
  readonly reason: string;
  readonly detail: string;
}

/**
 * A filter plugin. `node` judges a node directly in the scope; `domain` judges a child domain before it is
 * visited and must only reject when no node of its subtree could pass. Return `undefined` to pass.
 */
export interface Filter {
  readonly name: string;
  /** Every reason code the filter can return. */
  readonly reasons: readonly string[];
  /** True when the filter cannot reject anything for this request (it is then skipped). Absent: always runs. */
  idle?(request: CompiledRequest): boolean;
  node?(node: NodeState, request: CompiledRequest): Rejection | undefined;
  domain?(domain: DomainState, request: CompiledRequest): Rejection | undefined;
}

/** What a scorer knows about the scope it scores in. */
export interface ScoreContext {
  readonly request: CompiledRequest;
  /** The scope domain, or `null` for the virtual root. */
  readonly scope: DomainState | null;
}

/**
 * A scorer plugin (one per policy): scores every candidate that passed the filters, in [0, 100], higher is
 * better. Candidates arrive in id order; `out[i]` receives the score of `candidates[i]` (`out` is preallocated).
 */
export interface Scorer {
  /** The policy name domains use to pick this scorer (the registry derives PolicyName from these). */
  readonly name: string;
  score(candidates: readonly Candidate[], context: ScoreContext, out: Float64Array): void;
}

/** A device scorer: rates one node's device choice in [0, 100]; the mean of all of them blends into the score. */
export interface DeviceScorer {
  readonly name: string;
  score(choice: DeviceChoice, request: DeviceRequest): number;
}
