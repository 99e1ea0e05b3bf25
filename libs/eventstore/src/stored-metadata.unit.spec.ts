import { EventMetadata, HcnError, NewEvent } from '@hcn/contracts';
import { MemoryEventStore } from './memory/memory-event-store';
import { fullMetadata, storedMetadata } from './stored-metadata';

const workloadId = '00000000-0000-4000-8000-000000000001';
const base: EventMetadata = {
  correlationId: workloadId,
  causationId: 'request-1',
  actor: { kind: 'user', id: 'admin' },
  occurredAt: '2026-11-26T00:00:00.000Z',
  schemaVersion: 1,
};

describe('stored metadata (what the store leaves out of the metadata, what reads fill back)', () => {
  it.each([
    ['a workload event correlated by its workload', base, { workloadId }, ['causationId']],
    [
      'a request correlated to itself',
      { ...base, correlationId: 'r', causationId: 'r' },
      {},
      ['correlationId'],
    ],
    ['a workload event caused by itself', { ...base, causationId: workloadId }, { workloadId }, []],
    [
      'another correlation',
      { ...base, correlationId: 'other' },
      { workloadId },
      ['correlationId', 'causationId'],
    ],
    ['schema version 2', { ...base, schemaVersion: 2 }, { workloadId }, ['causationId', 'schemaVersion']],
  ])('%s: keeps only what cannot be implied, and reads the same back', (_what, metadata, data, kept) => {
    const stored = storedMetadata(metadata, data);
    const ids = ['correlationId', 'causationId', 'schemaVersion'].filter((k) => k in stored);
    expect(ids).toEqual(kept);
    expect(fullMetadata(JSON.parse(JSON.stringify(stored)), data)).toEqual(metadata);
  });

  it('refuses stored metadata whose correlation nothing implies', () => {
    const stored = storedMetadata(base, { workloadId });
    expect(() => fullMetadata(stored, { other: 1 })).toThrow(HcnError);
  });

  it('stores a workload event without its correlation and causation and reads both back', async () => {
    const store = new MemoryEventStore();
    const event: NewEvent = {
      eventId: '00000000-0000-4000-8000-0000000000e1',
      type: 'WorkloadStopRequested',
      data: { workloadId, reason: 'done' },
      metadata: { ...base, causationId: workloadId },
    };
    await store.append(`workload-${workloadId}`, [event], 'no_stream');
    const [raw] = (await store.readRaw({ maxCount: 10 })).events;
    expect(Object.keys(raw.metadata as object).sort()).toEqual(['actor', 'hash', 'occurredAt', 'prevHash']);
    const [read] = await store.readStream(`workload-${workloadId}`);
    expect(read.metadata).toMatchObject({ ...base, causationId: workloadId });
  });
});
