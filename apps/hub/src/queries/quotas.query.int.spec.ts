import { ValidationError } from '@hcn/contracts';
import { QuotaUsageRow, openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import { listQuotaUsage, quotaUsage } from './quotas.query';

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
    expect((await listQuotaUsage(db, ['team-z', 'team-a', 'team-a'])).map((q) => q.namespace)).toEqual([
      'team-a',
      'team-z',
    ]);
    expect((await listQuotaUsage(db, '*')).map((q) => q.namespace)).toEqual(['team-a', 'team-b']);
    expect(await listQuotaUsage(db, [])).toEqual([]);
  });

  it('rejects bad namespaces with QUOTAS.* validation errors', async () => {
    await expect(quotaUsage(db, 'Bad_Name')).rejects.toBeInstanceOf(ValidationError);
    await expect(quotaUsage(db, 'Bad_Name')).rejects.toMatchObject({ code: 'QUOTAS.NAMESPACE' });
    await expect(listQuotaUsage(db, ['ok', '-bad'])).rejects.toMatchObject({ code: 'QUOTAS.SCOPE' });
  });
});
