import type { StreamHead } from '@hcn/contracts';
import type { BrokenLink, HashChainReport } from '@hcn/eventstore';
import type { WorkloadChain } from '../chain/chain.model';

/**
 * What this site's own log says about a hand-over of one of its workloads to another site: the site, the
 * delegation id, the namespace (the other site finds its workload by both), the workload's id there once known,
 * and the heads of the other site's stream this log recorded (checked against the chain the other site shows).
 */
export interface SiteHop {
  readonly siteId: string;
  /** How this site knows it: a registered child, or a configured peer (which key the two share). */
  readonly relation: 'child' | 'peer';
  readonly delegationId: string;
  readonly namespace: string;
  /** The index (`seq`) of the parent's hop to the site in its chain, when the chain shows one. */
  readonly hopSeq?: number;
  /** The other site's workload id, once recorded. */
  readonly remoteWorkloadId?: string;
  /** Heads of the other site's workload stream recorded in this log (revision, hash). */
  readonly anchors: readonly StreamHead[];
}

/** Why a part of a stitched chain does not hold. */
export type SitePartProblem =
  /** A link of the other site's stream is broken (content changed, link, gap, head missing, hash stripped). */
  | { readonly kind: 'chain'; readonly broken: BrokenLink }
  /** The head the other site states is not the last event it sent. */
  | { readonly kind: 'head'; readonly expected: StreamHead; readonly actual: StreamHead | null }
  /** A head this log recorded differs from the other site's stream at that revision. */
  | {
      readonly kind: 'anchor';
      readonly revision: number;
      readonly expected: string;
      readonly actual: string | null;
    }
  /** The stream is not the one of this delegation (other site, stream, delegation or origin). */
  | { readonly kind: 'origin'; readonly detail: string }
  /** An event this site's registry does not read. */
  | { readonly kind: 'decode'; readonly eventId: string; readonly detail: string };

/** The outcome of checking one other site's part of a chain. */
export interface SitePartVerification {
  readonly ok: boolean;
  /** Events whose links were recomputed. */
  readonly eventsChecked: number;
  /** The head as recomputed from the events (null when none came). */
  readonly head: StreamHead | null;
  /** Recorded heads compared. */
  readonly anchorsChecked: number;
  readonly problems: readonly SitePartProblem[];
}

/** Why a part could not be had at all (site unknown or unreachable, refused): nothing was judged. */
export interface SitePartUnavailable {
  readonly code: string;
  readonly message: string;
}

/** One other site's part of a stitched chain: its chain for the delegated workload, with its stream's head. */
export interface StitchedSitePart {
  readonly siteId: string;
  readonly delegationId: string;
  readonly hopSeq?: number;
  /** The other site's workload id and stream (absent when it could not be read). */
  readonly workloadId?: string;
  readonly streamId?: string;
  /** The head the other site stated for its stream. */
  readonly head?: StreamHead;
  readonly verification?: SitePartVerification;
  /** The other site's chain, rebuilt here from the events whose links were checked. */
  readonly chain?: WorkloadChain;
  readonly unavailable?: SitePartUnavailable;
}

/** A workload's chain on this site with the chains of the sites it was delegated to, stitched at the hops. */
export interface StitchedChain extends WorkloadChain {
  readonly sites: readonly StitchedSitePart[];
}

/** verify of a stitched chain: this site's stream and every other site's part. */
export interface StitchedVerification {
  /** True when this site's stream and every part hold and every part could be checked. */
  readonly ok: boolean;
  /** True when every part could be read (false: some site could not be asked; see its `unavailable`). */
  readonly complete: boolean;
  readonly workloadId: string;
  readonly local: HashChainReport;
  readonly sites: ReadonlyArray<Omit<StitchedSitePart, 'chain'>>;
}
