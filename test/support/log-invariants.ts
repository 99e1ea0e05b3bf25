import type { RecordedHcnEvent } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';

/** Reads the whole log in order, optionally only events whose type starts with one of `types`. */
export async function readWholeLog(store: EventStore, types?: string[]): Promise<RecordedHcnEvent[]> {
  const all: RecordedHcnEvent[] = [];
  const filter = types ? { kind: 'eventTypePrefix' as const, prefixes: types } : undefined;
  for (;;) {
    const page = await store.readAll({ after: all[all.length - 1]?.position, maxCount: 5000, filter });
    all.push(...page);
    if (page.length < 5000) return all;
  }
}

type Amounts = { cpuMillis: number; memoryBytes: number; accelerators: number };

/** The worst moment of each node: replays its reservations in stream order and returns any overcommit found. */
export function overcommits(log: readonly RecordedHcnEvent[]): string[] {
  const capacity = new Map<string, Amounts>();
  const reserved = new Map<string, Map<string, Amounts>>();
  const problems: string[] = [];
  const byStream = [...log].sort((a, b) => (a.streamId === b.streamId ? a.revision - b.revision : 0));
  for (const e of byStream) {
    if (e.type === 'NodeRegistered' || e.type === 'NodeReregistered') {
      const data = e.data;
      capacity.set(data.nodeId, {
        cpuMillis: data.cpuCores * 1000,
        memoryBytes: data.memoryBytes,
        accelerators: data.accelerators ?? 0,
      });
    } else if (e.type === 'CapacityReserved') {
      const data = e.data;
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
      reserved.get(e.data.nodeId)?.delete(e.data.allocationId);
    }
  }
  return problems;
}

/** Placements per workload instance and attempt: more than one is a double placement. */
export function doublePlacements(log: readonly RecordedHcnEvent[]): string[] {
  const seen = new Map<string, number>();
  for (const e of log) {
    if (e.type !== 'AllocationPlaced') continue;
    const d = e.data;
    const key = `${d.workloadId}/${d.instance}/${d.attempt}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} placed ${n} times`);
}

/** Reservations still held whose allocation was never placed on that node (leaked capacity). */
export function orphanReservations(log: readonly RecordedHcnEvent[]): string[] {
  const placed = new Set(
    log.flatMap((e) => (e.type === 'AllocationPlaced' ? [`${e.data.allocationId}@${e.data.nodeId}`] : [])),
  );
  const held = new Map<string, RecordedHcnEvent>();
  for (const e of log) {
    if (e.type === 'CapacityReserved') held.set(`${e.data.allocationId}@${e.data.nodeId}`, e);
    if (e.type === 'CapacityReleased') held.delete(`${e.data.allocationId}@${e.data.nodeId}`);
  }
  return [...held.keys()].filter((key) => !placed.has(key));
}
