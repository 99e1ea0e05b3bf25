import type { Clock } from '../tokens';

/** How often nodes heartbeat and how long a silent one stays online. */
export interface Cadence {
  readonly intervalSeconds: number;
  readonly ttlSeconds: number;
}

/** The configured cadence and the most heartbeats per second the whole fleet may send (0: no scaling). */
export interface CadenceSettings {
  /** The interval of a small fleet, and the least interval of any fleet. */
  readonly heartbeatIntervalSeconds: number;
  /** The TTL of a small fleet; a scaled TTL keeps its ratio to the interval. */
  readonly nodeTtlSeconds: number;
  readonly heartbeatsMaxPerSecond: number;
}

/** Heartbeats an agent sends between two identity checks (`GET /v1/agents/me`, where it learns a new interval). */
export const AGENT_IDENTITY_CHECK_EVERY = 3;

/**
 * The cadence for a fleet of `nodes` (as Nomad scales its heartbeat TTL): the configured interval while the fleet
 * sends at most `heartbeatsMaxPerSecond` with it, else the whole seconds that keep it under that rate; the TTL
 * grows in proportion, so a node may miss as many heartbeats as in a small fleet.
 */
export function heartbeatCadence(nodes: number, settings: CadenceSettings): Cadence {
  const base = settings.heartbeatIntervalSeconds;
  const max = settings.heartbeatsMaxPerSecond;
  if (max <= 0 || nodes / base <= max) return { intervalSeconds: base, ttlSeconds: settings.nodeTtlSeconds };
  const needed = Math.ceil(nodes / max);
  return { intervalSeconds: needed, ttlSeconds: (settings.nodeTtlSeconds * needed) / base };
}

/**
 * The hub's heartbeat cadence: what registration answers and identity checks tell agents (from the registered
 * fleet's size, which liveness reports), and the TTL liveness judges silence by. When the fleet shrinks the
 * interval told drops at once, but the longer TTL is kept until every agent told the longer interval has
 * checked in again and then been silent for a whole short TTL, so none is judged by a TTL shorter than its own.
 */
export class HeartbeatCadence {
  private nodes = 0;
  private heldTtlMs = 0;
  private heldUntilMs = 0;

  constructor(
    private readonly settings: CadenceSettings,
    private readonly clock: Clock,
  ) {}

  /** The cadence agents are told now; `joining`: nodes registering now, not yet counted. */
  current(joining = 0): Cadence {
    return heartbeatCadence(this.nodes + joining, this.settings);
  }

  /** Notes the number of registered nodes. */
  observe(nodes: number): void {
    const before = this.current();
    this.nodes = nodes;
    if (this.current().ttlSeconds >= before.ttlSeconds) return;
    const now = this.clock().getTime();
    const holdMs = (before.intervalSeconds * (AGENT_IDENTITY_CHECK_EVERY + 1) + before.ttlSeconds) * 1000;
    this.heldTtlMs = Math.max(now < this.heldUntilMs ? this.heldTtlMs : 0, before.ttlSeconds * 1000);
    this.heldUntilMs = Math.max(this.heldUntilMs, now + holdMs);
  }

  /** The TTL silence is judged by now, in ms (the current one, or a longer one still held after a shrink). */
  ttlMs(): number {
    const current = this.current().ttlSeconds * 1000;
    return this.clock().getTime() < this.heldUntilMs ? Math.max(current, this.heldTtlMs) : current;
  }
}
