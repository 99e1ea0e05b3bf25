import { ParsedAgentReport, deterministicUuid, inParallel } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import type { MessageBus } from '@hcn/messaging';
import { commandTopicFor } from '@hcn/platform';
import type { DataSource } from 'typeorm';
import { markAllocationLost } from '../sagas/mark-lost';
import type { CommandSigner } from '../dispatch/command-signer';
import type { ClusterView } from '../scheduling/cluster-view';
import type { Clock } from '../tokens';
import { Logger } from '@nestjs/common';

const logger = new Logger('reconcile');

type Heartbeat = Extract<ParsedAgentReport, { kind: 'heartbeat' }>;

/** Workload id of a stop command for an allocation nothing here knows (the agent needs none to stop it). */
const NO_WORKLOAD = '00000000-0000-0000-0000-000000000000';

/**
 * Compares what each node's heartbeats say it runs with what the hub holds capacity for on it, both ways. An
 * allocation the hub holds that the heartbeats have not listed for `graceMs` (and two heartbeats) is marked lost
 * (`ALLOCATION.NOT_RUNNING`); one the agent runs that the hub holds nothing for, for as long, is sent a
 * stop-allocation command. The grace covers a placement not started yet (the start deadlines handle those) and an
 * end whose capacity is being given back.
 */
export class HeartbeatReconciler {
  /** node -> allocation -> [first heartbeat time it was off, heartbeats since] */
  private readonly missing = new Map<string, Map<string, [number, number]>>();
  private readonly unknown = new Map<string, Map<string, [number, number]>>();

  constructor(
    private readonly view: ClusterView,
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly readModels: DataSource,
    private readonly signer: CommandSigner,
    private readonly clock: Clock,
    private readonly graceMs: number,
  ) {}

  /** Reconciles one node with its newest heartbeat. */
  async observe(heartbeat: Heartbeat, domainId: string): Promise<void> {
    const { nodeId } = heartbeat;
    const at = Math.min(Date.parse(heartbeat.sentAt), this.clock().getTime());
    const running = new Set(heartbeat.runningAllocations);
    const held = this.view.heldOn(nodeId);
    const heldIds = new Set(held.map((h) => h.allocationId));
    const lost = this.due(
      this.missing,
      nodeId,
      held.map((h) => h.allocationId).filter((id) => !running.has(id)),
      at,
    );
    const strays = this.due(
      this.unknown,
      nodeId,
      [...running].filter((id) => !heldIds.has(id)),
      at,
    );
    await inParallel(lost, 4, (allocationId) =>
      this.markLost(nodeId, allocationId, held.find((h) => h.allocationId === allocationId)?.workloadId),
    );
    if (strays.length > 0) await this.stopStrays(nodeId, domainId, strays);
  }

  /** Forgets a node (deregistered, or reports no longer reach this hub). */
  forget(nodeId: string): void {
    this.missing.delete(nodeId);
    this.unknown.delete(nodeId);
  }

  /** Tracks the ids off in this heartbeat; returns those off for the whole grace and two heartbeats at least. */
  private due(
    table: Map<string, Map<string, [number, number]>>,
    nodeId: string,
    off: string[],
    at: number,
  ): string[] {
    const before = table.get(nodeId) ?? new Map<string, [number, number]>();
    const now = new Map<string, [number, number]>();
    const due: string[] = [];
    for (const id of off) {
      const [since, count] = before.get(id) ?? [at, 0];
      if (at - since >= this.graceMs && count + 1 >= 2) due.push(id);
      else now.set(id, [since, count + 1]);
    }
    if (now.size > 0) table.set(nodeId, now);
    else table.delete(nodeId);
    return due;
  }

  private async markLost(
    nodeId: string,
    allocationId: string,
    workloadId: string | undefined,
  ): Promise<void> {
    if (!workloadId) return;
    const seconds = Math.round(this.graceMs / 1000);
    await markAllocationLost(this.store, {
      workloadId,
      allocationId,
      nodeId,
      reason: `ALLOCATION.NOT_RUNNING: node ${nodeId}'s heartbeats have not listed it for ${seconds} s`,
      by: 'heartbeat-reconciler',
      cause: `reconcile:${nodeId}`,
      now: this.clock(),
    }).catch((error: Error) => logger.error(`lost ${allocationId}: ${error.message}`));
  }

  private async stopStrays(nodeId: string, domainId: string, allocationIds: string[]): Promise<void> {
    const rows: Array<{ allocation_id: string; workload_id: string }> = await this.readModels
      .query('SELECT allocation_id, workload_id FROM allocation_state WHERE allocation_id = ANY($1)', [
        allocationIds,
      ])
      .catch(() => []);
    const workloadOf = new Map(rows.map((r) => [r.allocation_id, r.workload_id]));
    const at = this.clock().toISOString();
    const messages = allocationIds.map((allocationId) =>
      this.signer.message({
        commandId: deterministicUuid(`reconcile-stop:${nodeId}:${allocationId}:${at}`),
        nodeId,
        kind: 'stop-allocation',
        workloadId: workloadOf.get(allocationId) ?? NO_WORKLOAD,
        allocationId,
        gracePeriodSeconds: 10,
        reason: 'the hub holds nothing for this allocation on this node',
      }),
    );
    await this.bus.publishAll([{ topic: commandTopicFor(domainId), messages }]);
  }
}
