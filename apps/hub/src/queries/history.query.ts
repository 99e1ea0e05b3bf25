import { HcnError, heartbeatStream, isEventOf, z } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import type { DataSource } from 'typeorm';

/** Query of `GET /v1/history/usage` and `/v1/history/scheduling`: one node or one domain (usage), a window, buckets. */
export const historyQuerySchema = z
  .object({
    nodeId: z.string().uuid().optional(),
    domainId: z.string().min(1).max(200).optional(),
    minutes: z.coerce.number().int().min(1).max(1440).default(60),
    buckets: z.coerce.number().int().min(10).max(240).default(60),
  })
  .strict();

/** Query of `GET /v1/history/usage`: exactly one of nodeId and domainId. */
export const usageQuerySchema = historyQuerySchema.refine((q) => !q.nodeId !== !q.domainId, {
  message: 'name exactly one of nodeId and domainId',
});

/** A parsed history query. */
export type HistoryQuery = z.output<typeof historyQuerySchema>;

/** Most nodes of a domain whose heartbeats one usage query reads. */
export const MAX_DOMAIN_NODES = 50;
/** Most heartbeats read per node (newest first). */
const MAX_HEARTBEATS = 5000;
const PAGE = 500;

/** Usage over time, one value per bucket (null: no heartbeat in it). */
export interface UsageHistory {
  from: string;
  to: string;
  bucketSeconds: number;
  /** Bucket starts (epoch seconds). */
  t: number[];
  /** CPU in use, 0..1 of the nodes' cores (core-weighted over a domain). */
  cpu: Array<number | null>;
  /** Memory in use, bytes (summed over a domain's nodes that reported in the bucket). */
  memoryUsedBytes: Array<number | null>;
  memoryTotalBytes: number;
  /** Mean accelerator utilization, 0..1 (absent: no device reported any). */
  accelerator: Array<number | null> | null;
  nodes: { read: number; total: number };
}

/** One heartbeat as the usage history uses it. */
export interface UsageSample {
  nodeId: string;
  at: number;
  cpuUsage: number;
  memoryUsedBytes: number;
  deviceUtilization: number[];
}

interface NodeRow {
  node_id: string;
  cpu_cores: number;
  memory_bytes: string;
}

/** Buckets samples: per bucket, each node's mean, then the core-weighted CPU, summed memory and mean device use. */
export function bucketUsage(
  samples: readonly UsageSample[],
  cores: ReadonlyMap<string, number>,
  from: number,
  bucketMs: number,
  buckets: number,
): Pick<UsageHistory, 'cpu' | 'memoryUsedBytes' | 'accelerator'> {
  type Acc = { n: number; cpu: number; mem: number; dev: number; devN: number };
  const cells: Array<Map<string, Acc>> = Array.from({ length: buckets }, () => new Map());
  for (const s of samples) {
    const i = Math.floor((s.at - from) / bucketMs);
    if (i < 0 || i >= buckets) continue;
    const acc = cells[i].get(s.nodeId) ?? { n: 0, cpu: 0, mem: 0, dev: 0, devN: 0 };
    acc.n += 1;
    acc.cpu += s.cpuUsage;
    acc.mem += s.memoryUsedBytes;
    for (const u of s.deviceUtilization) {
      acc.dev += u;
      acc.devN += 1;
    }
    cells[i].set(s.nodeId, acc);
  }
  const anyDevice = samples.some((s) => s.deviceUtilization.length > 0);
  const cpu: Array<number | null> = [];
  const mem: Array<number | null> = [];
  const dev: Array<number | null> = [];
  for (const cell of cells) {
    if (cell.size === 0) {
      cpu.push(null);
      mem.push(null);
      dev.push(null);
      continue;
    }
    let weighted = 0;
    let weight = 0;
    let used = 0;
    let devSum = 0;
    let devN = 0;
    for (const [nodeId, a] of cell) {
      const w = cores.get(nodeId) ?? 1;
      weighted += (a.cpu / a.n) * w;
      weight += w;
      used += a.mem / a.n;
      if (a.devN > 0) {
        devSum += a.dev / a.devN;
        devN += 1;
      }
    }
    cpu.push(weighted / weight);
    mem.push(Math.round(used));
    dev.push(devN > 0 ? devSum / devN : null);
  }
  return { cpu, memoryUsedBytes: mem, accelerator: anyDevice ? dev : null };
}

/** The retained heartbeats of a node sent at or after `from` (newest first, at most MAX_HEARTBEATS). */
async function heartbeatsSince(store: EventStore, nodeId: string, from: number): Promise<UsageSample[]> {
  const out: UsageSample[] = [];
  let fromRevision: number | undefined;
  while (out.length < MAX_HEARTBEATS) {
    const page = await store.readStream(heartbeatStream(nodeId), {
      direction: 'backwards',
      maxCount: PAGE,
      ...(fromRevision === undefined ? {} : { fromRevision }),
    });
    for (const e of page) {
      if (!isEventOf(e, 'NodeHeartbeatRecorded')) continue;
      const at = Date.parse(e.data.sentAt);
      if (at < from) return out;
      out.push({
        nodeId,
        at,
        cpuUsage: e.data.usage.cpuUsage,
        memoryUsedBytes: e.data.usage.memoryUsedBytes,
        deviceUtilization: (e.data.devices ?? []).map((d) => d.utilization),
      });
    }
    const last = page[page.length - 1];
    if (page.length < PAGE || !last || last.revision === 0) return out;
    fromRevision = last.revision - 1;
  }
  return out;
}

/** CPU, memory and accelerator use of one node or one domain over the retained heartbeats. */
export async function usageHistory(
  db: DataSource,
  store: EventStore,
  q: HistoryQuery,
  now: Date,
): Promise<UsageHistory> {
  const rows: NodeRow[] = q.nodeId
    ? await db.query('SELECT node_id, cpu_cores, memory_bytes FROM node_state WHERE node_id = $1', [q.nodeId])
    : await db.query(
        `SELECT node_id, cpu_cores, memory_bytes FROM node_state
          WHERE domain_id = $1 AND status <> 'deregistered' ORDER BY node_id`,
        [q.domainId],
      );
  if (q.nodeId && rows.length === 0) throw new HcnError('NODE.NOT_FOUND', `No node ${q.nodeId}`);
  const read = rows.slice(0, MAX_DOMAIN_NODES);
  const to = now.getTime();
  const from = to - q.minutes * 60_000;
  const bucketMs = (q.minutes * 60_000) / q.buckets;
  const samples = (await Promise.all(read.map((r) => heartbeatsSince(store, r.node_id, from)))).flat();
  const cores = new Map(read.map((r) => [r.node_id, r.cpu_cores]));
  return {
    from: new Date(from).toISOString(),
    to: now.toISOString(),
    bucketSeconds: bucketMs / 1000,
    t: Array.from({ length: q.buckets }, (_, i) => Math.round((from + i * bucketMs) / 1000)),
    ...bucketUsage(samples, cores, from, bucketMs, q.buckets),
    memoryTotalBytes: read.reduce((sum, r) => sum + Number(r.memory_bytes), 0),
    nodes: { read: read.length, total: rows.length },
  };
}

/** Placements and failures over time, counts per bucket. */
export interface SchedulingHistory {
  from: string;
  to: string;
  bucketSeconds: number;
  t: number[];
  placements: number[];
  failures: number[];
}

/**
 * Allocations placed (by `placed_at`) and failed or lost (by `ended_at`) per bucket, from allocation_state, in the
 * visible namespaces, optionally on one node or in one domain.
 */
export async function schedulingHistory(
  db: DataSource,
  q: HistoryQuery,
  namespaces: readonly string[] | '*',
  now: Date,
): Promise<SchedulingHistory> {
  const to = now.getTime();
  const from = to - q.minutes * 60_000;
  const bucketSeconds = (q.minutes * 60) / q.buckets;
  const params: unknown[] = [new Date(from).toISOString(), bucketSeconds];
  const where: string[] = [];
  if (namespaces !== '*') where.push(`namespace = ANY($${params.push([...namespaces])})`);
  if (q.nodeId) where.push(`node_id = $${params.push(q.nodeId)}`);
  if (q.domainId) where.push(`domain_id = $${params.push(q.domainId)}`);
  const scope = where.map((w) => ` AND ${w}`).join('');
  const bucket = (column: string) => `floor(extract(epoch FROM ${column} - $1::timestamptz) / $2)::int`;
  const rows: Array<{ kind: string; b: number; n: string }> = await db.query(
    `SELECT 'placed' AS kind, ${bucket('placed_at')} AS b, count(*) AS n FROM allocation_state
      WHERE placed_at >= $1::timestamptz${scope} GROUP BY 2
     UNION ALL
     SELECT 'failed', ${bucket('ended_at')}, count(*) FROM allocation_state
      WHERE ended_at >= $1::timestamptz AND status IN ('failed', 'lost')${scope} GROUP BY 2`,
    params,
  );
  const placements = new Array<number>(q.buckets).fill(0);
  const failures = new Array<number>(q.buckets).fill(0);
  for (const r of rows) {
    const i = Math.min(Number(r.b), q.buckets - 1);
    if (i < 0) continue;
    (r.kind === 'placed' ? placements : failures)[i] += Number(r.n);
  }
  return {
    from: new Date(from).toISOString(),
    to: now.toISOString(),
    bucketSeconds,
    t: Array.from({ length: q.buckets }, (_, i) => Math.round(from / 1000 + i * bucketSeconds)),
    placements,
    failures,
  };
}
