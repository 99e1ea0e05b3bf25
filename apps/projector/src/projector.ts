import type { EventStore } from '@hcn/eventstore';
import type { DataSource } from 'typeorm';
import { ProjectionRunner, RunnerOptions } from './projection-runner';
import { ProjectionSettings, createProjections } from './projections';

/** A running projector: every projection over one checkpointed read of the log. */
export interface RunningProjector {
  readonly runner: ProjectionRunner;
  whenCaughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts every projection from its checkpoint. */
export async function startProjector(
  store: EventStore,
  dataSource: DataSource,
  options: RunnerOptions = {},
  settings: ProjectionSettings = {},
): Promise<RunningProjector> {
  const runner = new ProjectionRunner(store, dataSource, createProjections(settings), options);
  await runner.start();
  return { runner, whenCaughtUp: () => runner.whenCaughtUp(), stop: () => runner.stop() };
}
