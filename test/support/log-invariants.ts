import type { RecordedEvent } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';

/** Reads the whole log in order, optionally only events whose type starts with one of `types`. */
export async function readWholeLog(store: EventStore, types?: string[]): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  const filter = types ? { kind: 'eventTypePrefix' as const, prefixes: types } : undefined;
  for (;;) {
    const page = await store.readAll({ after: all[all.length - 1]?.position, maxCount: 5000, filter });
    all.push(...page);
    if (page.length < 5000) return all;
  }
}

type Amounts = { cpuMillis: number; memoryBytes: number; accelerators: number };

/** The worst moment of each node: replays its reservations in stream order and returns any overcommit found. */
export function overcommits(log: readonly RecordedEvent[]): string[] {
  const capacity = new Map<string, Amounts>();
  const reserved = new Map<string, Map<string, Amounts>>();
  const problems: string[] = [];
  const byStream = [...log].sort((a, b) => (a.streamId === b.streamId ? a.revision - b.revision : 0));
  for (const e of byStream) {
    const data = e.data as any;
    if (e.type === 'NodeRegistered' || e.type === 'NodeReregistered') {
      capacity.set(data.nodeId, {
        cpuMillis: data.cpuCores * 1000,
        memoryBytes: data.memoryBytes,
        accelerators: data.accelerators ?? 0,
      });
    } else if (e.type === 'CapacityReserved') {
      const held = reserved.get(data.nodeId) ?? new Map<string, Amounts>();
      held.set(data.allocationId, data.resources);
      reserved.set(data.nodeId, held);
      const total = [...held.values()].reduce((a, b) => ({
        cpuMillis: a.cpuMillis + b.cpuMillis,
        memoryBytes: a.memoryBytes + b.memoryBytes,
        accelerators: a.accelerators + b.accelerators,
      }));
      const cap = capacity.get(data.nodeId);
      for (const k of ['cpuMillis', 'memoryBytes', 'accelerators'] as const) {
        if (!cap || total[k] > cap[k])
          problems.push(`node ${data.nodeId} at revision ${e.revision}: ${k} ${total[k]} > ${cap?.[k]}`);
      }
    } else if (e.type === 'CapacityReleased') {
      reserved.get(data.nodeId)?.delete(data.allocationId);
    }
  }
  return problems;
}

/** Placements per workload instance and attempt: more than one is a double placement. */
export function doublePlacements(log: readonly RecordedEvent[]): string[] {
  const seen = new Map<string, number>();
  for (const e of log) {
    if (e.type !== 'AllocationPlaced') continue;
    const d = e.data as { workloadId: string; instance: number; attempt: number };
    const key = `${d.workloadId}/${d.instance}/${d.attempt}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} placed ${n} times`);
}

/** Reservations still held whose allocation was never placed on that node (leaked capacity). */
export function orphanReservations(log: readonly RecordedEvent[]): string[] {
  const placed = new Set(
    log
      .filter((e) => e.type === 'AllocationPlaced')
      .map((e) => `${(e.data as any).allocationId}@${(e.data as any).nodeId}`),
  );
  const held = new Map<string, RecordedEvent>();
  for (const e of log) {
    const d = e.data as any;
    if (e.type === 'CapacityReserved') held.set(`${d.allocationId}@${d.nodeId}`, e);
    if (e.type === 'CapacityReleased') held.delete(`${d.allocationId}@${d.nodeId}`);
  }
  return [...held.keys()].filter((key) => !placed.has(key));
}
