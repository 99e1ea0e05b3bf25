import type { EventEmitter } from 'node:events';
import { DataSource } from 'typeorm';
import { ProjectionCheckpoints1763770000000 } from './migrations/1763770000000-projection-checkpoints';
import { NodeState1763770100000 } from './migrations/1763770100000-node-state';
import { WorkloadState1763770200000 } from './migrations/1763770200000-workload-state';
import { QuotaUsage1763770300000 } from './migrations/1763770300000-quota-usage';
import { NodeCapacity1763770400000 } from './migrations/1763770400000-node-capacity';
import { AllocationLogs1763771000000 } from './migrations/1763771000000-allocation-logs';
import { NodeDevices1763772100000 } from './migrations/1763772100000-node-devices';
import { DelegationHops1763772200000 } from './migrations/1763772200000-delegation-hops';
import { DelegationHopSteps1763775700000 } from './migrations/1763775700000-delegation-hop-steps';
import { ProjectionLag1763772300000 } from './migrations/1763772300000-projection-lag';
import { DeviceState1763773100000 } from './migrations/1763773100000-device-state';
import { QuotaDeviceAmounts1763773000000 } from './migrations/1763773000000-quota-device-amounts';
import { ReservationDevices1763773200000 } from './migrations/1763773200000-reservation-devices';
import { DeviceRegistrations1763773500000 } from './migrations/1763773500000-device-registrations';
import { DomainAllocatable1763773600000 } from './migrations/1763773600000-domain-allocatable';
import { DomainUsageMillis1763773700000 } from './migrations/1763773700000-domain-usage-millis';
import { InlineDelegationHops1763773800000 } from './migrations/1763773800000-inline-delegation-hops';
import { WorkloadFoldedState1763773900000 } from './migrations/1763773900000-workload-folded-state';
import { NodeRuntime1763774500000 } from './migrations/1763774500000-node-runtime';
import { TaskQueueState1763774800000 } from './migrations/1763774800000-taskqueue-state';
import { SiteState1763775500000 } from './migrations/1763775500000-site-state';
import { ClusterCheckpoint1763776000000 } from './migrations/1763776000000-cluster-checkpoint';
import { DomainSummaryRow } from './domain-summary.entity';
import { NodeReservationRow } from './node-reservation.entity';
import { NodeStateRow } from './node-state.entity';
import { ProjectionCheckpoint } from './projection-checkpoint.entity';
import { QuotaHoldRow, QuotaUsageRow } from './quota-usage.entity';

/** Every read-model entity. */
export const READ_MODEL_ENTITIES = [
  ProjectionCheckpoint,
  NodeStateRow,
  DomainSummaryRow,
  NodeReservationRow,
  QuotaUsageRow,
  QuotaHoldRow,
];

/** Every read-model migration, in order. Tables are only ever changed by migrations (never `synchronize`). */
export const READ_MODEL_MIGRATIONS = [
  ProjectionCheckpoints1763770000000,
  NodeState1763770100000,
  WorkloadState1763770200000,
  QuotaUsage1763770300000,
  NodeCapacity1763770400000,
  AllocationLogs1763771000000,
  NodeDevices1763772100000,
  DelegationHops1763772200000,
  DelegationHopSteps1763775700000,
  ProjectionLag1763772300000,
  QuotaDeviceAmounts1763773000000,
  DeviceState1763773100000,
  ReservationDevices1763773200000,
  DeviceRegistrations1763773500000,
  DomainAllocatable1763773600000,
  DomainUsageMillis1763773700000,
  InlineDelegationHops1763773800000,
  WorkloadFoldedState1763773900000,
  NodeRuntime1763774500000,
  TaskQueueState1763774800000,
  SiteState1763775500000,
  ClusterCheckpoint1763776000000,
];

const MIGRATION_LOCK = 4_711_002;

/** A TypeORM data source over the read-model database. */
export function createReadModelDataSource(url: string, poolSize = 10): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: READ_MODEL_ENTITIES,
    migrations: READ_MODEL_MIGRATIONS,
    migrationsTableName: 'read_model_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize },
  });
}

/** Initializes the data source and applies pending migrations under an advisory lock (safe with many processes). */
export async function openReadModels(url: string, poolSize?: number): Promise<DataSource> {
  const dataSource = createReadModelDataSource(url, poolSize);
  await dataSource.initialize();
  // as the event store's pool: a server restart must not end the process through an unhandled client 'error'
  const pool = (dataSource.driver as unknown as { master?: EventEmitter }).master;
  pool?.on('connect', (client: EventEmitter) => client.on('error', () => undefined));
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}
