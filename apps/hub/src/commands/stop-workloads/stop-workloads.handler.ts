import { inParallel, workloadStream } from '@hcn/contracts';
import { workloadDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { CommandEngine } from '@hcn/commands';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { inNamespace } from '../../auth/principal';
import { CLOCK, Clock } from '../../tokens';
import { userContext } from '../workload-command';
import { StopWorkloadsCommand, StopWorkloadsResult } from './stop-workloads.command';

/** Workload streams read side by side before the one append. */
const READS_SIDE_BY_SIDE = 16;

/**
 * Many stops in one append: each workload stream read once, `RequestStop` decided on it, and every stop that
 * appends goes to the store in one appendMany (the command engine's handleMany); a stream written meanwhile is
 * decided again on its own. The same events as StopWorkloadCommand, one per stream, without three reads and an
 * append per workload.
 */
@CommandHandler(StopWorkloadsCommand)
export class StopWorkloadsHandler implements ICommandHandler<StopWorkloadsCommand, StopWorkloadsResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, workloadIds, reason }: StopWorkloadsCommand): Promise<StopWorkloadsResult> {
    const ids = [...new Set(workloadIds)];
    const engine = new CommandEngine(this.store, workloadDecider, { cachedStreams: Math.max(1, ids.length) });
    const visible: string[] = [];
    const notFound: string[] = [];
    await inParallel(ids, READS_SIDE_BY_SIDE, async (workloadId) => {
      const { state } = await engine.load(workloadStream(workloadId));
      const seen = state.exists && state.spec && inNamespace(principal, state.spec.namespace);
      (seen ? visible : notFound).push(workloadId);
    });
    const outcomes = await engine.handleMany(
      visible.map((workloadId) => ({
        streamId: workloadStream(workloadId),
        commands: [
          // correlated by workload, as a single stop is
          {
            command: { type: 'RequestStop' as const, reason },
            context: userContext(principal, this.clock, workloadId),
          },
        ],
      })),
    );
    const stopped: string[] = [];
    const refused: Array<{ workloadId: string; error: unknown }> = [];
    outcomes.forEach((outcome, at) => {
      const failure = outcome.refused[0];
      if (failure) refused.push({ workloadId: visible[at], error: failure.error });
      else stopped.push(visible[at]);
    });
    return { stopped, notFound, refused };
  }
}
