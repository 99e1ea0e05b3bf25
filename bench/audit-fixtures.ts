import type { NewEvent } from '@hcn/contracts';
import { deterministicUuid } from '@hcn/contracts';

const GiB = 2 ** 30;
/** First instant of the benchmark month (2026-10, UTC). */
export const MONTH_START = Date.UTC(2026, 9, 1);
const MONTH_MS = 31 * 24 * 3600 * 1000;

/** A new event at `atMs`. */
export function ev(type: string, data: unknown, atMs: number, id: string): NewEvent {
  return {
    eventId: deterministicUuid(id),
    type,
    data,
    metadata: {
      correlationId: 'bench',
      causationId: 'bench',
      actor: { kind: 'system', id: 'bench' },
      occurredAt: new Date(atMs).toISOString(),
    },
  };
}

/** A valid workload spec in `namespace`, optionally constrained to a region. */
export function benchSpec(name: string, namespace: string, region?: string): Record<string, unknown> {
  return {
    name,
    namespace,
    type: 'process',
    command: 'true',
    args: [],
    env: {},
    resources: { cpuMillis: 2000, memoryBytes: 4 * GiB, accelerators: 1 },
    constraints: {
      labels: [],
      domains: { affinity: [], antiAffinity: [] },
      regions: { affinity: region ? [region] : [], antiAffinity: [] },
      nodeBlacklist: [],
      preferDomains: [],
      preferRegions: [],
    },
    replicas: 1,
    priority: 0,
    restartPolicy: { policy: 'never', maxRetries: 3, backoffSeconds: 5 },
    stopGraceSeconds: 30,
  };
}

/** Verdicts of `n` node candidates, one accepted with a score, the others filtered. */
export function candidates(n: number, seed: number): unknown[] {
  return Array.from({ length: n }, (_, i) =>
    i === 0
      ? { id: deterministicUuid(`c${seed}-${i}`), kind: 'node', accepted: true, score: 61.25 }
      : {
          id: deterministicUuid(`c${seed}-${i}`),
          kind: 'node',
          accepted: false,
          reason: 'FILTER.INSUFFICIENT_CPU',
          detail: 'cpuMillis: need 2000, free 1000',
        },
  );
}

/** A node registration of node `i` in `domainId` with two A100-80G devices. */
export function registration(nodeId: string, domainId: string, i: number): Record<string, unknown> {
  const device = (index: number) => ({
    index,
    vendor: 'nvidia',
    model: 'A100-80G',
    memoryBytes: 80 * GiB,
    numaNode: null,
    health: 100,
    interconnect: [],
  });
  return {
    nodeId,
    domainId,
    hostname: `bench-${i}`,
    arch: 'x64',
    os: 'linux',
    cpuCores: 32,
    memoryBytes: 128 * GiB,
    diskBytes: 0,
    accelerators: 2,
    devices: [device(0), device(1)],
    labels: {},
    isHead: false,
    agentVersion: 'bench',
  };
}

/** The sites of the benchmark tree: three regions of four sites. */
export const SITES = ['eu', 'us', 'ap'].flatMap((r) =>
  [0, 1, 2, 3].map((s) => ({ region: r, site: `${r}-s${s}` })),
);

/** An instant of the month for the k-th of n things. */
export function instantOf(k: number, n: number): number {
  return MONTH_START + Math.floor((k / Math.max(n, 1)) * (MONTH_MS - 3_600_000));
}
