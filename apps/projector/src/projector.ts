import type { EventStore } from '@hcn/eventstore';
import type { DataSource } from 'typeorm';
import { ProjectionRunner, RunnerOptions } from './projection-runner';
import { PROJECTIONS } from './projections';

/** A running projector: one checkpointed runner per projection. */
export interface RunningProjector {
  readonly runners: readonly ProjectionRunner[];
  whenCaughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts every projection from its checkpoint. */
export async function startProjector(
  store: EventStore,
  dataSource: DataSource,
  options: RunnerOptions = {},
): Promise<RunningProjector> {
  const runners = PROJECTIONS.map(
    (projection) => new ProjectionRunner(store, dataSource, projection, options),
  );
  await Promise.all(runners.map((r) => r.start()));
  return {
    runners,
    whenCaughtUp: async () => void (await Promise.all(runners.map((r) => r.whenCaughtUp()))),
    stop: async () => void (await Promise.all(runners.map((r) => r.stop()))),
  };
}
