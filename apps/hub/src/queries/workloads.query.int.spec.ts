import { ValidationError, type WorkloadSpec } from '@hcn/contracts';
import { initialWorkloadState } from '@hcn/domain';
import {
  ALLOCATION_STATE,
  AllocationStateRecord,
  WORKLOAD_STATE,
  WorkloadStateRecord,
  WorkloadStatus,
  openReadModels,
  upsertRows,
} from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import { listAllocations, listAllocationsQuerySchema } from './allocations.query';
import { listWorkloads } from './workloads.query';

const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NODE = id(900);
const at = (s: number): Date => new Date(Date.UTC(2026, 10, 22, 0, 0, s));

function workload(
  n: number,
  namespace: string,
  status: WorkloadStatus,
  extra: { name?: string } = {},
): WorkloadStateRecord {
  return {
    workload_id: id(n),
    namespace,
    name: `job-${n}`,
    type: 'process',
    status,
    priority: 0,
    replicas: 1,
    generation: 1,
    spec: {
      resources: { cpuMillis: 100, memoryBytes: 1000, accelerators: 0 },
      env: { SECRET: 'x' },
    } as unknown as WorkloadSpec,
    instances: [
      {
        instance: 0,
        attempt: 0,
        status: 'running' as const,
        allocationId: id(100 + n),
        nodeId: n % 2 ? NODE : id(901),
        retries: 0,
        replace: false,
      },
    ],
    hops: 2,
    stop_requested: false,
    deleted: status === 'deleted',
    state: initialWorkloadState,
    submitted_at: at(n).toISOString(),
    updated_at: at(n + 100).toISOString(),
    last_revision: 3,
    ...extra,
  };
}

describeWithPostgres('workload queries (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('q_wl');
    db = await openReadModels(database.url, 2);
    await upsertRows(db.manager, WORKLOAD_STATE, [
      workload(1, 'team-a', 'running'),
      workload(2, 'team-a', 'pending'),
      workload(3, 'team-b', 'failed'),
      workload(4, 'team-a', 'deleted'),
      workload(5, 'team-a', 'running', { name: 'trainer' }),
      workload(6, 'team-c', 'completed'),
    ]);
    await upsertRows(
      db.manager,
      ALLOCATION_STATE,
      [1, 0, 2].map((attempt): AllocationStateRecord => ({
        allocation_id: id(200 + attempt),
        workload_id: id(1),
        namespace: 'team-a',
        instance: 0,
        attempt,
        generation: 1,
        node_id: NODE,
        domain_id: 'site-a',
        status: attempt === 2 ? 'running' : 'failed',
        cpu_millis: 100,
        memory_bytes: String(2 ** 40),
        accelerators: 1,
        exit_code: attempt === 2 ? null : 1,
        signal: null,
        reason: attempt === 2 ? null : 'exit 1',
        pid: 7,
        placed_at: at(attempt).toISOString(),
        started_at: at(attempt + 1).toISOString(),
        ended_at: attempt === 2 ? null : at(attempt + 2).toISOString(),
        updated_at: at(attempt + 2).toISOString(),
      })),
    );
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const names = (page: { items: Array<{ name: string }> }) => page.items.map((i) => i.name);

  it('lists the visible namespaces newest first, without deleted ones or specs', async () => {
    const page = await listWorkloads(db, { namespaces: ['team-a', 'team-b'] });
    expect(names(page)).toEqual(['trainer', 'job-3', 'job-2', 'job-1']);
    expect(page.total).toBe(4);
    expect(page.nextCursor).toBeNull();
    expect(page.items[0]).toMatchObject({
      workloadId: id(5),
      resources: { cpuMillis: 100, memoryBytes: 1000, accelerators: 0 },
      submittedAt: at(5).toISOString(),
      hops: 2,
    });
    expect(page.items[0]).not.toHaveProperty('spec');
    expect((await listWorkloads(db, { namespaces: [] })).total).toBe(0);
    expect((await listWorkloads(db, { namespaces: '*' })).total).toBe(5);
  });

  it('filters by namespace, status, name part, node and deletion', async () => {
    const scope = { namespaces: '*' as const };
    expect(names(await listWorkloads(db, { ...scope, namespace: 'team-a', status: 'running' }))).toEqual([
      'trainer',
      'job-1',
    ]);
    expect(names(await listWorkloads(db, { ...scope, status: ['failed', 'completed'] }))).toEqual([
      'job-6',
      'job-3',
    ]);
    expect(names(await listWorkloads(db, { ...scope, name: 'rain' }))).toEqual(['trainer']);
    expect(names(await listWorkloads(db, { ...scope, nodeId: NODE }))).toEqual(['trainer', 'job-3', 'job-1']);
    expect(names(await listWorkloads(db, { ...scope, status: 'deleted' }))).toEqual(['job-4']);
    expect((await listWorkloads(db, { ...scope, includeDeleted: 'true' })).total).toBe(6);
    expect((await listWorkloads(db, { namespaces: ['team-b'], namespace: 'team-a' })).total).toBe(0);
  });

  it('pages by cursor', async () => {
    const scope = { namespaces: '*' as const, limit: 2 };
    const first = await listWorkloads(db, scope);
    expect(names(first)).toEqual(['job-6', 'trainer']);
    const second = await listWorkloads(db, { ...scope, cursor: first.nextCursor! });
    expect(names(second)).toEqual(['job-3', 'job-2']);
    const third = await listWorkloads(db, { ...scope, cursor: second.nextCursor! });
    expect(names(third)).toEqual(['job-1']);
    expect(third.nextCursor).toBeNull();
    expect(third.total).toBe(5);
  });

  it('rejects bad parameters with WORKLOADS.* validation errors', async () => {
    const bad = async (query: Record<string, unknown>, code: string) => {
      const error = await listWorkloads(db, { namespaces: '*', ...query } as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe(code);
    };
    await bad({ status: 'sleeping' }, 'WORKLOADS.QUERY');
    await bad({ limit: 0 }, 'WORKLOADS.QUERY');
    await bad({ name: "x' OR 1=1" }, 'WORKLOADS.QUERY');
    await bad({ nodeId: 'nope' }, 'WORKLOADS.QUERY');
    await bad({ unknown: 1 }, 'WORKLOADS.QUERY');
    await bad({ offset: 3 }, 'WORKLOADS.QUERY'); // one pagination style: limit and cursor
    await bad({ namespaces: ['Not A Namespace'] }, 'WORKLOADS.SCOPE');
    await bad({ sort: 'hops' }, 'WORKLOADS.QUERY');
    await bad({ order: 'sideways' }, 'WORKLOADS.QUERY');
    const badCursor = (cursor: string) =>
      expect(listWorkloads(db, { namespaces: '*', cursor })).rejects.toMatchObject({
        code: 'REQUEST.BAD_CURSOR',
      });
    const byName = await listWorkloads(db, { namespaces: '*', sort: 'name', limit: 1 });
    await badCursor(byName.nextCursor!); // a cursor of another sort
    await badCursor('garbage');
    const forged = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');
    await badCursor(forged(['submittedAt', 'desc', 'not a time', id(1)]));
    await badCursor(forged(['submittedAt', 'desc', at(1).toISOString(), 'not-a-uuid']));
  });

  it('sorts by name, status, priority or time, and the cursor follows the sort', async () => {
    const scope = { namespaces: '*' as const };
    expect(names(await listWorkloads(db, { ...scope, sort: 'name', order: 'asc' }))).toEqual([
      'job-1',
      'job-2',
      'job-3',
      'job-6',
      'trainer',
    ]);
    expect(names(await listWorkloads(db, { ...scope, sort: 'updatedAt', order: 'asc', limit: 2 }))).toEqual([
      'job-1',
      'job-2',
    ]);
    const first = await listWorkloads(db, { ...scope, sort: 'name', order: 'desc', limit: 2 });
    expect(names(first)).toEqual(['trainer', 'job-6']);
    const next = { ...scope, sort: 'name', order: 'desc', limit: 2, cursor: first.nextCursor! } as const;
    const second = await listWorkloads(db, next);
    expect(names(second)).toEqual(['job-3', 'job-2']);
    expect(names(await listWorkloads(db, { ...next, cursor: second.nextCursor! }))).toEqual(['job-1']);
    const byStatus = await listWorkloads(db, { ...scope, sort: 'status', order: 'asc' });
    expect(byStatus.items.map((w) => w.status)).toEqual([
      'completed',
      'failed',
      'pending',
      'running',
      'running',
    ]);
  });

  it("lists allocations with filters, sort and paging, within the caller's scope", async () => {
    const query = (q: Record<string, unknown>, namespaces: '*' | string[] = '*') =>
      listAllocations(db, { ...listAllocationsQuerySchema.parse(q), namespaces });
    const page = await query({ workloadId: id(1), sort: 'placedAt', order: 'asc' });
    expect(page.items.map((a) => [a.attempt, a.status])).toEqual([
      [0, 'failed'],
      [1, 'failed'],
      [2, 'running'],
    ]);
    expect(page.items[2]).toMatchObject({
      resources: { cpuMillis: 100, memoryBytes: 2 ** 40, accelerators: 1 },
      endedAt: null,
      startedAt: at(3).toISOString(),
    });
    expect((await query({ sort: 'endedAt' })).items.map((a) => a.attempt)).toEqual([1, 0, 2]);
    const firstFailed = await query({ status: 'failed', limit: '1' });
    const nextFailed = await query({ status: 'failed', limit: '1', cursor: firstFailed.nextCursor });
    expect(nextFailed.items.map((a) => a.attempt)).toEqual([0]);
    expect((await query({ status: ['running', 'failed'], nodeId: NODE })).total).toBe(3);
    expect((await query({ workloadId: id(1) }, ['team-b'])).total).toBe(0);
    expect((await query({ namespace: 'team-a' }, ['team-b'])).items).toEqual([]);
    expect((await query({ workloadId: id(2) })).items).toEqual([]);
    for (const bad of [
      { sort: 'hops' },
      { order: 'x' },
      { limit: '1001' },
      { offset: '1' },
      { status: 'sleeping' },
    ])
      expect(listAllocationsQuerySchema.safeParse(bad).success).toBe(false);
  });
});
