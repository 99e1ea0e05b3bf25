import { ValidationError } from '@hcn/contracts';
import { QuotaUsageRow, openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import { listQuotaUsage, listQuotasQuerySchema, quotaUsage } from './quotas.query';

const AT = new Date(Date.UTC(2026, 10, 22));

describeWithPostgres('quota queries (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('q_quota');
    db = await openReadModels(database.url, 2);
    await db.getRepository(QuotaUsageRow).insert([
      {
        namespace: 'team-a',
        limits: { cpuMillis: 4000, workloads: 2 },
        usedCpuMillis: '5000',
        usedMemoryBytes: String(2 ** 40),
        usedAccelerators: 1,
        usedWorkloads: 1,
        lastRevision: 4,
        updatedAt: AT,
      },
      {
        namespace: 'team-b',
        limits: {},
        usedCpuMillis: '0',
        usedMemoryBytes: '0',
        usedAccelerators: 0,
        usedWorkloads: 0,
        lastRevision: 0,
        updatedAt: AT,
      },
    ]);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('shows limits, usage and what is left (never below zero, null when unlimited)', async () => {
    expect(await quotaUsage(db, 'team-a')).toEqual({
      namespace: 'team-a',
      limits: { cpuMillis: 4000, workloads: 2 },
      used: {
        cpuMillis: 5000,
        memoryBytes: 2 ** 40,
        accelerators: 1,
        acceleratorMemoryBytes: 0,
        computeUnits: 0,
        workloads: 1,
      },
      remaining: {
        cpuMillis: 0,
        memoryBytes: null,
        accelerators: null,
        acceleratorMemoryBytes: null,
        computeUnits: null,
        workloads: 1,
      },
      updatedAt: AT.toISOString(),
    });
  });

  it('shows a namespace without quota events as unlimited and unused', async () => {
    expect(await quotaUsage(db, 'team-z')).toEqual({
      namespace: 'team-z',
      limits: {},
      used: {
        cpuMillis: 0,
        memoryBytes: 0,
        accelerators: 0,
        acceleratorMemoryBytes: 0,
        computeUnits: 0,
        workloads: 0,
      },
      remaining: {
        cpuMillis: null,
        memoryBytes: null,
        accelerators: null,
        acceleratorMemoryBytes: null,
        computeUnits: null,
        workloads: null,
      },
      updatedAt: null,
    });
  });

  it('lists the given namespaces by name, or every namespace with quota events', async () => {
    const names = async (...args: Parameters<typeof listQuotaUsage>) =>
      (await listQuotaUsage(...args)).items.map((q) => q.namespace);
    expect(await names(db, ['team-z', 'team-a', 'team-a'])).toEqual(['team-a', 'team-z']);
    expect(await names(db, '*')).toEqual(['team-a', 'team-b']);
    expect(await listQuotaUsage(db, [])).toEqual({ items: [], nextCursor: null, total: 0 });
  });

  it('filters by namespace and prefix, sorts by name or usage ratio (unlimited last), pages', async () => {
    const scope = ['team-b', 'team-a', 'team-z'];
    const q = (query: Record<string, unknown>) => listQuotasQuerySchema.parse(query);
    const names = async (...args: Parameters<typeof listQuotaUsage>) =>
      (await listQuotaUsage(...args)).items.map((v) => v.namespace);
    expect(await names(db, scope, q({ sort: 'cpuUsage', order: 'desc' }))).toEqual([
      'team-a',
      'team-b',
      'team-z',
    ]);
    expect(await names(db, scope, q({ sort: 'namespace', order: 'desc' }))).toEqual([
      'team-z',
      'team-b',
      'team-a',
    ]);
    expect(await names(db, scope, q({ prefix: 'team-b' }))).toEqual(['team-b']);
    expect(await names(db, '*', q({ namespace: ['team-a', 'team-q'] }))).toEqual(['team-a']);
    const first = await listQuotaUsage(db, scope, q({ limit: '1' }));
    const page = await listQuotaUsage(db, scope, q({ limit: '1', cursor: first.nextCursor }));
    expect([page.items.map((v) => v.namespace), page.total]).toEqual([['team-b'], 3]);
    expect(page.items[0].remaining.cpuMillis).toBeNull();
    for (const bad of [{ sort: 'used' }, { order: 'up' }, { limit: '0' }, { offset: '1' }, { prefix: 'A B' }])
      expect(listQuotasQuerySchema.safeParse(bad).success).toBe(false);
  });

  it('rejects bad namespaces with QUOTAS.* validation errors', async () => {
    await expect(quotaUsage(db, 'Bad_Name')).rejects.toBeInstanceOf(ValidationError);
    await expect(quotaUsage(db, 'Bad_Name')).rejects.toMatchObject({ code: 'QUOTAS.NAMESPACE' });
    await expect(listQuotaUsage(db, ['ok', '-bad'])).rejects.toMatchObject({ code: 'QUOTAS.SCOPE' });
  });
});
