import { HcnError } from '@hcn/contracts';
import { workloadDecider, workloadStatus } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { requireNamespace } from '../../auth/principal';
import { HubMetrics } from '../../common/metrics';
import { PlacementService } from '../../scheduling/placement.service';
import { HotStreams } from '../../common/hot-streams';
import { CLOCK, Clock, HUB_CONFIG } from '../../tokens';
import {
  WorkloadCommandResult,
  answerRepeated,
  holdQuota,
  loadWorkload,
  submittedWorkloadId,
  userContext,
} from '../workload-command';
import { ClusterView } from '../../scheduling/cluster-view';
import { checkDeviceRequestFits } from './device-request-fit';
import { checkHostPaths } from './host-paths';
import { sealSecrets } from './seal-secrets';
import { checkRequestCaps } from './request-caps';
import type { HubConfig } from '../../config';
import { SubmitWorkloadCommand } from './submit-workload.command';

/** Reply to a submission. */
export interface SubmitWorkloadResult extends WorkloadCommandResult {
  /** False when the idempotency key named an existing identical submission. */
  created: boolean;
}

/**
 * Admission (namespace, type, quota), then the submission and a first placement of every instance in one append
 * (PlacementService.submitAndPlace; an instance it could not reserve for waits for the saga). An idempotency key
 * maps to one workload id per namespace: the same spec again answers the existing workload and writes nothing.
 */
@CommandHandler(SubmitWorkloadCommand)
export class SubmitWorkloadHandler implements ICommandHandler<SubmitWorkloadCommand, SubmitWorkloadResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly hot: HotStreams,
    private readonly placement: PlacementService,
    private readonly metrics: HubMetrics,
    private readonly view: ClusterView,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  async execute({
    principal,
    spec: given,
    idempotencyKey,
  }: SubmitWorkloadCommand): Promise<SubmitWorkloadResult> {
    const spec = sealSecrets(given, this.config);
    requireNamespace(principal, spec.namespace);
    checkRequestCaps([spec], this.config.maxInstancesPerRequest);
    const submit = (workloadId: string) => ({ type: 'Submit' as const, workloadId, spec, idempotencyKey });
    const workloadId = submittedWorkloadId(spec.namespace, idempotencyKey);
    const existing = idempotencyKey ? await loadWorkload(this.store, workloadId) : undefined;
    if (existing?.state.exists) return answerRepeated(workloadId, existing, spec, idempotencyKey);
    const refusal = workloadDecider.validate(submit(workloadId), workloadDecider.initialState);
    if (refusal) throw refusal; // unsupported types, before any write
    checkDeviceRequestFits(spec.devices, this.view.deviceLimits());
    checkHostPaths(spec, this.config.containerHostPaths);
    const context = userContext(principal, this.clock, workloadId);
    const stage = this.metrics.submissionStageSeconds;
    const total = stage.startTimer({ stage: 'total' });
    const quota = stage.startTimer({ stage: 'quota' });
    await holdQuota(this.hot, workloadId, spec, context, this.config.defaultQuota);
    quota();
    let placed: Awaited<ReturnType<PlacementService['submitAndPlace']>>;
    try {
      placed = await this.placement.submitAndPlace(workloadId, submit(workloadId), context);
    } catch (error) {
      // a concurrent submission with the same idempotency key appended first: answer as for a repeat
      if (!(error instanceof HcnError) || error.code !== 'WORKLOAD.ALREADY_SUBMITTED' || !idempotencyKey)
        throw error;
      return answerRepeated(workloadId, await loadWorkload(this.store, workloadId), spec, idempotencyKey);
    }
    this.metrics.workloadsSubmitted.inc();
    total();
    const { state, revision, events } = placed.workload;
    const submitted = events.filter((e) => e.type === 'WorkloadSubmitted').map((e) => e.type);
    return { workloadId, status: workloadStatus(state), revision, events: submitted, created: true };
  }
}
