import { PreconditionFailedError } from '@hcn/commands';
import { workloadDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { HotStreams } from '../../common/hot-streams';
import { CLOCK, Clock, HUB_CONFIG } from '../../tokens';
import type { HubConfig } from '../../config';
import { checkHostPaths } from '../submit-workload/host-paths';
import { sealSecrets } from '../submit-workload/seal-secrets';
import { checkRequestCaps } from '../submit-workload/request-caps';
import {
  WorkloadCommandResult,
  holdQuota,
  loadVisibleWorkload,
  runWorkloadCommand,
  userContext,
} from '../workload-command';
import { UpdateWorkloadCommand } from './update-workload.command';

/**
 * WorkloadUpdated (new generation): allocations whose spec changed are stopped and replaced, a new replica count
 * adds or stops instances. The quota is re-held for the new spec first; over quota writes nothing.
 */
@CommandHandler(UpdateWorkloadCommand)
export class UpdateWorkloadHandler implements ICommandHandler<UpdateWorkloadCommand, WorkloadCommandResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly hot: HotStreams,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  async execute({
    principal,
    workloadId,
    spec: given,
    ifRevision,
  }: UpdateWorkloadCommand): Promise<WorkloadCommandResult> {
    const spec = sealSecrets(given, this.config);
    const { state, events } = await loadVisibleWorkload(this.store, principal, workloadId);
    const revision = events[events.length - 1].revision;
    if (ifRevision && !ifRevision.includes(revision)) throw new PreconditionFailedError(ifRevision, revision);
    const command = { type: 'Update' as const, spec };
    checkRequestCaps([spec], this.config.maxInstancesPerRequest);
    checkHostPaths(spec, this.config.containerHostPaths);
    if (workloadDecider.decide(command, state).length > 0 && spec.namespace === state.spec?.namespace) {
      const context = userContext(principal, this.clock, workloadId);
      await holdQuota(this.hot, workloadId, spec, context, this.config.defaultQuota);
    }
    return runWorkloadCommand(this.store, this.clock, principal, workloadId, command, ifRevision);
  }
}
