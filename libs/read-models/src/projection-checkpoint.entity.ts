import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Where a projection has read the log up to; written in the same transaction as the projection's rows. */
@Entity({ name: 'projection_checkpoints' })
export class ProjectionCheckpoint {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  /** Position.commit, as a decimal string (bigint). */
  @Column({ type: 'numeric' })
  commit!: string;

  /** Position.prepare, as a decimal string (bigint). */
  @Column({ type: 'numeric' })
  prepare!: string;

  /** Events applied since the last rebuild. */
  @Column({ type: 'bigint', name: 'events_applied', default: 0 })
  eventsApplied!: string;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;

  /** Recorded-at of the newest applied event. */
  @Column({ type: 'timestamptz', name: 'last_event_at', nullable: true })
  lastEventAt!: Date | null;

  /** How long that event took to be applied, in milliseconds. */
  @Column({ type: 'double precision', name: 'lag_ms', nullable: true })
  lagMs!: number | null;
}
