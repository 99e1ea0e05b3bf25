import type { CompiledLabelConstraint } from './labels';
import { compileLabelConstraint } from './labels';
import type { Constraints, DeviceRequest, PlacementRequest, Resources } from './model';
import { DEFAULT_SAMPLE_LIMIT, NO_CONSTRAINTS } from './model';
import { decisionSeed } from './random';
import type { DomainState, NodeState } from './tree/states';

/** A request ready for the filters and scorers: lists as sets (`null`: no constraint), the decision's seed. */
export interface CompiledRequest {
  readonly workloadId: string;
  readonly instance: number;
  readonly resources: Resources;
  /** FNV-1a of workload id and instance: the only source of randomness. */
  readonly seed: number;
  readonly labels: readonly CompiledLabelConstraint[];
  readonly domainAffinity: ReadonlySet<string> | null;
  /** The affinity domains that exist, resolved (a domain candidate passes when one is above or below it). */
  readonly domainAffinityStates: readonly DomainState[];
  readonly domainAntiAffinity: ReadonlySet<string> | null;
  readonly regionAffinity: ReadonlySet<string> | null;
  readonly regionAntiAffinity: ReadonlySet<string> | null;
  readonly blacklist: ReadonlySet<string> | null;
  /** The only nodes allowed, or null for any. */
  readonly allowlist: ReadonlySet<string> | null;
  /** With an allowlist: the domains that hold an allowed node (the nodes' homes and their ancestors). */
  readonly allowedDomains: ReadonlySet<string> | null;
  readonly excluded: ReadonlySet<string> | null;
  /** The preferred domains that exist, resolved. */
  readonly preferDomains: readonly DomainState[];
  readonly preferRegions: ReadonlySet<string>;
  /** The device ask, or null for none. */
  readonly devices: DeviceRequest | null;
  /** Nodes that cached a device outcome during this decision (cleared when it ends). */
  readonly judgedNodes: NodeState[];
  /** The runtime the workload needs; `process` is offered by every agent. */
  readonly runtime: string;
  /** A model's framework, which the node must serve with `runtime`; null: not a model. */
  readonly modelFramework: string | null;
  /** Feasible candidates a scope looks for before it stops filtering (Infinity: all). */
  readonly sampleLimit: number;
}

/** Looks a domain up by id. */
export type DomainLookup = (domainId: string) => DomainState | undefined;

/** Looks a node up by id. */
export type NodeLookup = (nodeId: string) => NodeState | undefined;

/** The domains above the listed nodes that exist (null without a list). */
function domainsHolding(nodes: readonly string[] | undefined, lookup: NodeLookup | undefined) {
  if (!nodes) return null;
  return new Set(nodes.flatMap((id) => lookup?.(id)?.home.chain ?? []));
}

/**
 * Compiles a request once per decision; missing constraint fields count as empty, unknown domains are dropped (and
 * unknown nodes of a node list: a list of none holds no domain).
 */
export function compileRequest(
  request: PlacementRequest,
  lookup: DomainLookup,
  nodeLookup?: NodeLookup,
): CompiledRequest {
  const c: Partial<Constraints> = request.constraints ?? NO_CONSTRAINTS;
  const resolve = (ids: readonly string[] | undefined) =>
    (ids ?? []).map(lookup).filter((d): d is DomainState => d !== undefined);
  return {
    workloadId: request.workloadId,
    instance: request.instance,
    resources: request.resources,
    seed: decisionSeed(request.workloadId, request.instance),
    labels: (c.labels ?? []).map(compileLabelConstraint),
    domainAffinity: setOrNull(c.domains?.affinity),
    domainAffinityStates: resolve(c.domains?.affinity),
    domainAntiAffinity: setOrNull(c.domains?.antiAffinity),
    regionAffinity: setOrNull(c.regions?.affinity),
    regionAntiAffinity: setOrNull(c.regions?.antiAffinity),
    blacklist: setOrNull(c.nodeBlacklist),
    allowlist: c.nodes ? new Set(c.nodes) : null,
    allowedDomains: domainsHolding(c.nodes, nodeLookup),
    excluded: setOrNull(request.excludeNodes),
    preferDomains: resolve(c.preferDomains),
    preferRegions: new Set(c.preferRegions ?? []),
    devices: request.devices ?? null,
    judgedNodes: [],
    runtime: request.runtime ?? 'process',
    modelFramework: request.modelFramework ?? null,
    sampleLimit: sampleLimitOf(request),
  };
}

/** Builds full constraints from a partial description (tests, the hub's DTO mapping). */
export function constraintsOf(partial: Partial<Constraints> = {}): Constraints {
  return { ...NO_CONSTRAINTS, ...partial };
}

function setOrNull(list: readonly string[] | undefined): ReadonlySet<string> | null {
  return list && list.length > 0 ? new Set(list) : null;
}

/** The request's sample limit as a number of feasible candidates (0 or absent-and-unbounded: Infinity). */
export function sampleLimitOf(request: Pick<PlacementRequest, 'sampleLimit'>): number {
  const limit = request.sampleLimit ?? DEFAULT_SAMPLE_LIMIT;
  return limit > 0 ? limit : Infinity;
}
