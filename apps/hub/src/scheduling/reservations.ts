import {
  DeviceGrant,
  EventDataOf,
  NewEvent,
  WorkloadSpec,
  nodeStream,
  placementNeedsOf,
  sitePlace,
  workloadStream,
} from '@hcn/contracts';
import { DecisionRecord, DomainError, InstanceView, WorkloadEvent } from '@hcn/domain';
import type { FederationSetup } from '@hcn/cluster';
import type { CommandContext } from '@hcn/commands';
import type { HotStreams } from '../common/hot-streams';
import type { HubMetrics } from '../common/metrics';
import type { ClusterView } from './cluster-view';
import { allocationIdFor, toDecisionRecord } from './decision-record';

/** Decisions tried per instance: a node whose decider refuses the reservation is excluded and the next decided. */
const RESERVE_ATTEMPTS = 5;

/**
 * Told of each placement this hub appended, right after its append: the dispatcher publishes the run command at
 * once instead of waiting for the log to deliver the event back.
 */
export interface PlacementListener {
  placed(commandId: string, placed: EventDataOf<'AllocationPlaced'>, spec: WorkloadSpec): void;
  /** An instance handed to another site was appended (federation): its delegation request can go now. */
  delegated?(eventId: string, delegated: EventDataOf<'AllocationDelegated'>, spec: WorkloadSpec): void;
}

/**
 * Capacity on nodes: decide and reserve (through the node engine; the view folds each reservation as appended),
 * announce a placement once appended, and give back what no workload uses.
 */
export class Reservations {
  constructor(
    private readonly view: ClusterView,
    private readonly metrics: HubMetrics,
    private readonly hot: HotStreams,
    private readonly listener?: PlacementListener,
  ) {}

  /**
   * Decides where an instance goes and reserves the capacity on that node's stream (the node excluded and a new decision
   * when refused); the decision record to append, or undefined when every attempt was refused. Across sites when
   * federated (local, children, peers; sites that refused the instance left out): a site's choice reserves nothing
   * here, the site admits it under its own rules.
   */
  async decideAndReserve(
    workloadId: string,
    spec: WorkloadSpec,
    instance: InstanceView,
    context: CommandContext,
    delegatedIn = false,
  ): Promise<DecisionRecord | undefined> {
    const allocationId = allocationIdFor(workloadId, instance.instance, instance.attempt);
    const excluded: string[] = [];
    const refused = (instance.rejectedSites ?? []).map(sitePlace);
    for (let attempt = 1; ; attempt++) {
      const stop = this.metrics.schedulingSeconds.startTimer();
      const basis = this.view.basis();
      const request = {
        workloadId,
        instance: instance.instance,
        resources: spec.resources,
        constraints: spec.constraints,
        excludeNodes: [...excluded, ...refused],
        ...(spec.devices ? { devices: spec.devices } : {}),
        ...placementNeedsOf(spec),
      };
      const { decision, site, federation } = this.view.decideAcross(request, this.setupFor(delegatedIn));
      stop();
      if (site) {
        const withSites = { ...basis, ...(federation ? { federation } : {}) };
        return toDecisionRecord(instance, decision, allocationId, withSites, undefined, site);
      }
      if (decision.outcome === 'placed') {
        const grants = decision.devices?.grants as DeviceGrant[] | undefined;
        const reserved = await this.reserve(decision.nodeId, workloadId, allocationId, spec, context, grants);
        if (!reserved) {
          excluded.push(decision.nodeId);
          if (attempt < RESERVE_ATTEMPTS) continue;
          return undefined;
        }
      }
      return toDecisionRecord(
        instance,
        decision,
        allocationId,
        federation ? { ...basis, federation } : basis,
      );
    }
  }

  /**
   * The federation setup an instance is decided under: none off federation; no peers for work another site
   * delegated here (a peer could hand it back: delegations go down the tree, or once across).
   */
  private setupFor(delegatedIn: boolean): FederationSetup | undefined {
    const setup = this.view.federation;
    if (!setup || !delegatedIn) return setup;
    return { ...setup, peers: [] };
  }

  private async reserve(
    nodeId: string,
    workloadId: string,
    allocationId: string,
    spec: WorkloadSpec,
    context: CommandContext,
    devices?: DeviceGrant[],
  ): Promise<boolean> {
    const command = {
      type: 'ReserveCapacity' as const,
      nodeId,
      allocationId,
      workloadId,
      resources: spec.resources,
      ...(devices?.length ? { devices } : {}),
    };
    try {
      await this.hot.nodes.handle(nodeStream(nodeId), command, context); // the view folds it as appended
      return true;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.metrics.reservationsRefused.inc({ reason: error.code });
      return false;
    }
  }

  /**
   * After a placement's append: counts it, hands its run command to the dispatcher at once, and gives back what
   * the same allocation still holds on other nodes (an earlier attempt cut short by a crash).
   */
  async announcePlaced(
    spec: WorkloadSpec,
    outcome: { allocationId: string; nodeId: string },
    decided: { readonly events: readonly WorkloadEvent[]; readonly appended: readonly NewEvent[] },
    context: CommandContext,
  ): Promise<void> {
    this.metrics.allocationsPlaced.inc();
    // the events as decided, typed, and as appended (same order), with the ids the run command is signed with
    for (const [at, event] of decided.events.entries()) {
      if (event.type !== 'AllocationPlaced' || event.data.allocationId !== outcome.allocationId) continue;
      this.listener?.placed(decided.appended[at].eventId, event.data, spec);
      break;
    }
    for (const other of this.view.reservationsOf(outcome.allocationId).filter((n) => n !== outcome.nodeId)) {
      await this.releaseOn(other, outcome.allocationId, 'superseded by a placement elsewhere', context);
    }
  }

  /** After a decision's append: hands each delegation to another site it recorded to the listener at once. */
  announceDelegated(
    spec: WorkloadSpec,
    decided: { readonly events: readonly WorkloadEvent[]; readonly appended: readonly NewEvent[] },
  ): void {
    for (const [at, event] of decided.events.entries())
      if (event.type === 'AllocationDelegated')
        this.listener?.delegated?.(decided.appended[at].eventId, event.data, spec);
  }

  /** Gives back a reservation the workload does not record on this node (another hub's placement won). */
  async releaseUnused(
    workloadId: string,
    allocationId: string,
    nodeId: string,
    context: CommandContext,
  ): Promise<void> {
    const { state } = await this.hot.workloads.load(workloadStream(workloadId));
    const placedHere = state.allocations[allocationId]?.nodeId === nodeId;
    if (!placedHere) await this.releaseOn(nodeId, allocationId, 'placement lost to another hub', context);
  }

  /** Gives back the reservations listed (best effort; else the orphan sweep). */
  async releaseAll(
    placed: ReadonlyArray<{ allocationId: string; nodeId: string }>,
    reason: string,
    context: CommandContext,
  ): Promise<void> {
    for (const { nodeId, allocationId } of placed)
      await this.releaseOn(nodeId, allocationId, reason, context).catch(() => undefined);
  }

  /** Gives back the capacity `allocationId` holds on `nodeId` (idempotent). */
  async releaseOn(
    nodeId: string,
    allocationId: string,
    reason: string,
    context: CommandContext,
  ): Promise<void> {
    await this.hot.nodes.handle(
      nodeStream(nodeId),
      { type: 'ReleaseCapacity', nodeId, allocationId, reason },
      context,
    );
  }
}
