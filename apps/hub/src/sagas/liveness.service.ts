import { inParallel, nodeStream, RecordedHcnEvent } from '@hcn/contracts';
import { NodeCommand, NodeEvent, NodeState, nodeDecider } from '@hcn/domain';
import { EventStore, Subscription, superviseSubscription } from '@hcn/eventstore';
import { randomUUID } from 'node:crypto';
import { CommandEngine, requestContext } from '@hcn/commands';
import type { HubMetrics } from '../common/metrics';
import type { HubConfig } from '../config';
import type { Clock } from '../tokens';
import { HeartbeatCadence } from './heartbeat-cadence';
import { Logger } from '@nestjs/common';

const logger = new Logger('liveness');

/** What liveness knows of one node. */
export interface TrackedNode {
  status: 'online' | 'offline';
  domainId: string;
  /** Last time the node was heard from (ms since epoch). */
  lastSeenMs: number;
  /** Highest heartbeat sequence seen from it (-1: none): a heartbeat at or below it is a replay. */
  lastSeq: number;
}

/**
 * Liveness saga: follows node-* and heartbeat-* in the log (so every hub sees the same facts, also after a
 * restart), and appends NodeWentOffline when a node is silent for longer than the TTL (scaled with the fleet's
 * size: `cadence`). Sweeps only after catching up plus one TTL, so a restarted hub gives live agents time to be heard.
 */
export class LivenessService {
  private readonly nodes = new Map<string, TrackedNode>();
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

  /** The tracked node, if registered. */
  get(nodeId: string): TrackedNode | undefined {
    return this.nodes.get(nodeId);
  }

  /**
   * The tracked node, reading its stream when the subscription has not delivered its registration yet
   * (a report can overtake it).
   */
  async lookup(nodeId: string): Promise<TrackedNode | undefined> {
    const known = this.nodes.get(nodeId);
    if (known) return known;
    const events = await this.store.readStream(nodeStream(nodeId));
    events.forEach((event) => this.apply(event));
    return this.nodes.get(nodeId);
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
    const node = this.nodes.get(nodeId);
    if (node && atMs > node.lastSeenMs) node.lastSeenMs = atMs;
    if (node && seq > node.lastSeq) node.lastSeq = seq;
  }

  /** Brings an offline node back online after a heartbeat (NodeCameOnline through the decider). */
  async markOnline(nodeId: string, seenAt: Date): Promise<void> {
    const context = requestContext({ kind: 'system', id: 'liveness' }, this.clock(), randomUUID());
    await this.engine.handle(
      nodeStream(nodeId),
      { type: 'ObserveHeartbeat', nodeId, seenAt: seenAt.toISOString() },
      context,
    );
    const node = this.nodes.get(nodeId);
    if (node) node.status = 'online';
  }

  private apply(event: RecordedHcnEvent): void {
    const recordedMs = Date.parse(event.recordedAt);
    switch (event.type) {
      case 'NodeRegistered':
      case 'NodeReregistered': {
        const data = event.data;
        const lastSeenMs = Math.max(recordedMs, this.nodes.get(data.nodeId)?.lastSeenMs ?? 0);
        const lastSeq = this.nodes.get(data.nodeId)?.lastSeq ?? -1;
        this.nodes.set(data.nodeId, { status: 'online', domainId: data.domainId, lastSeenMs, lastSeq });
        this.cadence.observe(this.nodes.size);
        break;
      }
      case 'NodeCameOnline':
        this.update(
          event.data.nodeId,
          (n) => ((n.status = 'online'), (n.lastSeenMs = Math.max(n.lastSeenMs, recordedMs))),
        );
        break;
      case 'NodeWentOffline':
        this.update(event.data.nodeId, (n) => (n.status = 'offline'));
        break;
      case 'NodeDeregistered':
        this.forget(event.data.nodeId);
        break;
      case 'NodeHeartbeatRecorded': {
        const { seq } = event.data;
        this.update(event.data.nodeId, (n) => {
          n.lastSeenMs = Math.max(n.lastSeenMs, recordedMs);
          n.lastSeq = Math.max(n.lastSeq, seq);
        });
        break;
      }
      default:
        break;
    }
  }

  private update(nodeId: string, change: (node: TrackedNode) => void): void {
    const node = this.nodes.get(nodeId);
    if (node) change(node);
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
      for (const [nodeId, node] of this.nodes) {
        if (node.status !== 'online') continue;
        online++;
        if (now.getTime() - Math.max(node.lastSeenMs, resumedAt) > allowedMs) silent.push([nodeId, node]);
      }
      const ttlSeconds = this.cadence.ttlMs() / 1000;
      await inParallel(silent, 8, ([nodeId, node]) => this.markOffline(nodeId, node, now, ttlSeconds));
      await inParallel(this.longOffline(now.getTime(), resumedAt), 8, (nodeId) => this.purge(nodeId, now));
      this.metrics.nodesTracked.set({ status: 'online' }, online);
      this.metrics.nodesTracked.set({ status: 'offline' }, this.nodes.size - online);
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
    const old = [...this.nodes].filter(([, n]) => n.status === 'offline');
    return old.filter(([, n]) => nowMs - Math.max(n.lastSeenMs, resumedAt) > purgeMs).map(([id]) => id);
  }

  /** Deregisters a node offline for too long; its history stays in the log, a returning agent registers again. */
  private async purge(nodeId: string, now: Date): Promise<void> {
    const context = requestContext({ kind: 'system', id: 'liveness' }, now, randomUUID());
    const reason = `offline for more than ${this.config.nodePurgeAfterSeconds} s (HCN_NODE_PURGE_AFTER_SECONDS)`;
    await this.engine.handle(nodeStream(nodeId), { type: 'Deregister', nodeId, reason }, context);
    this.forget(nodeId); // the event, when it comes back, finds it gone already
  }

  /** A deregistered node leaves liveness and the fleet's count. */
  private forget(nodeId: string): void {
    this.nodes.delete(nodeId);
    this.cadence.observe(this.nodes.size);
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
    node.status = 'offline';
    if (handled.events.length > 0) this.metrics.nodesWentOffline.inc();
  }
}
