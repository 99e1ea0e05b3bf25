import { inParallel, nodeStream, RecordedHcnEvent } from '@hcn/contracts';
import { NodeCommand, NodeEvent, NodeState, foldRecorded, nodeDecider } from '@hcn/domain';
import { EventStore, Subscription, superviseSubscription } from '@hcn/eventstore';
import { randomUUID } from 'node:crypto';
import { CommandEngine, requestContext } from '@hcn/commands';
import type { HubMetrics } from '../common/metrics';
import type { HubConfig } from '../config';
import type { Clock } from '../tokens';
import { HeartbeatCadence } from './heartbeat-cadence';
import { Logger } from '@nestjs/common';

const logger = new Logger('liveness');

/** What liveness knows of one node: its status and domain from the one fold, when it was last heard from. */
export interface TrackedNode {
  status: 'online' | 'offline';
  domainId: string;
  /** Last time the node was heard from (ms since epoch). */
  lastSeenMs: number;
  /** Highest heartbeat sequence seen from it (-1: none): a heartbeat at or below it is a replay. */
  lastSeq: number;
}

/** The node states liveness judges: the hub's one fold of the cluster (ClusterView). */
export interface FleetView {
  node(nodeId: string): NodeState | undefined;
  nodeStates(): Iterable<[string, NodeState]>;
}

/** When a node was last heard from: what the log says that the fold leaves out (heartbeats). */
interface Heard {
  lastSeenMs: number;
  lastSeq: number;
}

/**
 * Liveness saga: judges the nodes of the hub's one fold (status, domain: `fleet`) by when each was last heard
 * from, which it follows in the log (node-* and heartbeat-*, so every hub sees the same facts, also after a
 * restart), and appends NodeWentOffline when a node is silent for longer than the TTL (scaled with the fleet's
 * size: `cadence`). Sweeps only after catching up plus one TTL, so a restarted hub gives live agents time to be heard.
 */
export class LivenessService {
  private readonly lastHeard = new Map<string, Heard>();
  /** The heartbeat interval agents are told and the TTL silence is judged by, from the registered fleet's size. */
  readonly cadence: HeartbeatCadence;
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private sweepFromMs = Number.POSITIVE_INFINITY;
  /** How far this hub's report ingestion is behind; silence is judged against TTL + this lag. */
  private ingestLagMs = 0;

  constructor(
    private readonly store: EventStore,
    private readonly config: HubConfig,
    private readonly clock: Clock,
    private readonly metrics: HubMetrics,
    private readonly fleet: FleetView,
    /** From when silence may count: report ingestion stalled until then (IngestStalls). */
    private readonly ingestResumedAt: () => number = () => Number.NEGATIVE_INFINITY,
    /** The hub's node engine (`HotStreams.nodes`); by default one reading node streams afresh for each command. */
    private readonly engine: CommandEngine<NodeCommand, NodeEvent, NodeState> = new CommandEngine(
      store,
      nodeDecider,
    ),
  ) {
    this.cadence = new HeartbeatCadence(config, clock);
  }

  /** Starts following the log and sweeping. */
  start(): void {
    this.subscription = superviseSubscription(
      this.store,
      {
        filter: { kind: 'streamPrefix', prefixes: ['node-', 'heartbeat-'] },
        onEvent: (event) => this.apply(event),
        onCaughtUp: () => (this.sweepFromMs = this.clock().getTime() + this.cadence.ttlMs()),
        onError: (error) => logger.error(error.message),
        coalesceMs: 100,
      },
      { name: 'liveness', health: this.metrics.subscriptions, log: (line) => logger.warn(line) },
    );
    this.timer = setInterval(() => void this.sweep(), this.config.livenessSweepMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.stop();
  }

  /** The node as liveness judges it: registered in the fold, and its registration seen in the log. */
  get(nodeId: string): TrackedNode | undefined {
    return this.lastHeard.has(nodeId) ? this.tracked(nodeId, this.fleet.node(nodeId)) : undefined;
  }

  /**
   * The node, reading its stream when the fold has not applied its registration yet (a report can overtake it,
   * e.g. on a hub that did not register it); what is read is not kept: the fold brings it in order.
   */
  async lookup(nodeId: string): Promise<TrackedNode | undefined> {
    const known = this.get(nodeId);
    if (known) return known;
    const events = await this.store.readStream(nodeStream(nodeId));
    for (const event of events) this.apply(event);
    return this.tracked(nodeId, foldRecorded(nodeDecider, events));
  }

  private tracked(nodeId: string, state: NodeState | undefined): TrackedNode | undefined {
    if (!state?.registration || (state.status !== 'online' && state.status !== 'offline')) return undefined;
    const heard = this.lastHeard.get(nodeId);
    const lastSeenMs = Math.max(heard?.lastSeenMs ?? 0, state.lastSeenAt ? Date.parse(state.lastSeenAt) : 0);
    return {
      status: state.status,
      domainId: state.registration.domainId,
      lastSeenMs,
      lastSeq: heard?.lastSeq ?? -1,
    };
  }

  /**
   * Records how far behind report ingestion is. While the hub itself lags, a node is not judged silent for
   * that lag: otherwise an overloaded hub would mark live nodes offline and make itself busier still.
   */
  noteIngestLag(lagMs: number): void {
    this.ingestLagMs = lagMs;
    this.metrics.ingestLagSeconds.set(lagMs / 1000);
  }

  /** Notes that a node's heartbeat `seq` was just appended (so sweeps need not wait for the subscription). */
  heard(nodeId: string, atMs: number, seq: number): void {
    if (this.lastHeard.has(nodeId)) this.hear(nodeId, atMs, seq);
  }

  private hear(nodeId: string, atMs: number, seq = -1): void {
    const heard = this.lastHeard.get(nodeId);
    if (!heard) return void this.lastHeard.set(nodeId, { lastSeenMs: atMs, lastSeq: seq });
    heard.lastSeenMs = Math.max(heard.lastSeenMs, atMs);
    heard.lastSeq = Math.max(heard.lastSeq, seq);
  }

  /** Brings an offline node back online after a heartbeat (NodeCameOnline through the decider). */
  async markOnline(nodeId: string, seenAt: Date): Promise<void> {
    const context = requestContext({ kind: 'system', id: 'liveness' }, this.clock(), randomUUID());
    await this.engine.handle(
      nodeStream(nodeId),
      { type: 'ObserveHeartbeat', nodeId, seenAt: seenAt.toISOString() },
      context,
    );
  }

  /** Notes when a node was heard from: its registration, its coming back, each heartbeat (in log order). */
  private apply(event: RecordedHcnEvent): void {
    const recordedMs = Date.parse(event.recordedAt);
    switch (event.type) {
      case 'NodeRegistered':
      case 'NodeReregistered':
      case 'NodeCameOnline':
        this.hear(event.data.nodeId, recordedMs);
        this.cadence.observe(this.lastHeard.size);
        break;
      case 'NodeDeregistered':
        this.lastHeard.delete(event.data.nodeId);
        this.cadence.observe(this.lastHeard.size);
        break;
      case 'NodeHeartbeatRecorded': // of a node whose registration was seen (not one deregistered since)
        if (this.lastHeard.has(event.data.nodeId)) this.hear(event.data.nodeId, recordedMs, event.data.seq);
        break;
      default:
        break;
    }
  }

  private async sweep(): Promise<void> {
    const now = this.clock();
    if (this.sweeping || now.getTime() < this.sweepFromMs) return;
    this.sweeping = true;
    try {
      let online = 0;
      const silent: Array<[string, TrackedNode]> = [];
      // reports sent while ingestion stalled are in the topic still: that silence is the hub's, not the node's
      const resumedAt = this.ingestResumedAt();
      const allowedMs = this.cadence.ttlMs() + this.ingestLagMs;
      let registered = 0;
      for (const [nodeId, state] of this.fleet.nodeStates()) {
        const node = this.lastHeard.has(nodeId) ? this.tracked(nodeId, state) : undefined; // heard of: in the log
        if (!node) continue;
        registered++;
        if (node.status !== 'online') continue;
        online++;
        if (now.getTime() - Math.max(node.lastSeenMs, resumedAt) > allowedMs) silent.push([nodeId, node]);
      }
      const ttlSeconds = this.cadence.ttlMs() / 1000;
      await inParallel(silent, 8, ([nodeId, node]) => this.markOffline(nodeId, node, now, ttlSeconds));
      await inParallel(this.longOffline(now.getTime(), resumedAt), 8, (nodeId) => this.purge(nodeId, now));
      this.metrics.nodesTracked.set({ status: 'online' }, online);
      this.metrics.nodesTracked.set({ status: 'offline' }, registered - online);
    } catch (error) {
      logger.error(`sweep failed: ${(error as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  /** Offline nodes silent for longer than HCN_NODE_PURGE_AFTER_SECONDS (none when it is 0). */
  private longOffline(nowMs: number, resumedAt: number): string[] {
    if (this.config.nodePurgeAfterSeconds <= 0) return [];
    const purgeMs = this.config.nodePurgeAfterSeconds * 1000 + this.cadence.ttlMs(); // offline from last seen + TTL
    const old: string[] = [];
    for (const [nodeId, state] of this.fleet.nodeStates()) {
      const node =
        state.status === 'offline' && this.lastHeard.has(nodeId) ? this.tracked(nodeId, state) : undefined;
      if (node && nowMs - Math.max(node.lastSeenMs, resumedAt) > purgeMs) old.push(nodeId);
    }
    return old;
  }

  /** Deregisters a node offline for too long; its history stays in the log, a returning agent registers again. */
  private async purge(nodeId: string, now: Date): Promise<void> {
    const context = requestContext({ kind: 'system', id: 'liveness' }, now, randomUUID());
    const reason = `offline for more than ${this.config.nodePurgeAfterSeconds} s (HCN_NODE_PURGE_AFTER_SECONDS)`;
    await this.engine.handle(nodeStream(nodeId), { type: 'Deregister', nodeId, reason }, context);
  }

  private async markOffline(nodeId: string, node: TrackedNode, now: Date, ttlSeconds: number): Promise<void> {
    const context = requestContext({ kind: 'system', id: 'liveness' }, now, randomUUID());
    const command = {
      type: 'CheckLiveness' as const,
      nodeId,
      now: now.toISOString(),
      ttlSeconds,
      lastSeenAt: new Date(node.lastSeenMs).toISOString(),
    };
    const handled = await this.engine.handle(nodeStream(nodeId), command, context);
    if (handled.events.length > 0) this.metrics.nodesWentOffline.inc();
  }
}
