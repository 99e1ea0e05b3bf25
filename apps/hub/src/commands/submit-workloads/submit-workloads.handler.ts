import { HcnError, inParallel, quotaStream } from '@hcn/contracts';
import { workloadDecider, workloadStatus } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { requireNamespace } from '../../auth/principal';
import { HotStreams } from '../../common/hot-streams';
import { CommandContext } from '@hcn/commands';
import { HubMetrics } from '../../common/metrics';
import { ClusterView } from '../../scheduling/cluster-view';
import { PlacementService } from '../../scheduling/placement.service';
import type { PreparedSubmission } from '../../scheduling/submissions';
import { CLOCK, Clock, HUB_CONFIG } from '../../tokens';
import { checkDeviceRequestFits } from '../submit-workload/device-request-fit';
import { checkHostPaths } from '../submit-workload/host-paths';
import { sealSecrets } from '../submit-workload/seal-secrets';
import { checkRequestCaps } from '../submit-workload/request-caps';
import type { HubConfig } from '../../config';
import type { SubmitWorkloadResult, SubmitWorkloadsResult } from '../../common/command-results';
import {
  answerRepeated,
  holdQuotaAll,
  loadWorkload,
  submittedWorkloadId,
  userContext,
} from '../workload-command';
import { BatchItem, SubmitWorkloadsCommand } from './submit-workloads.command';

/** Streams of keyed workloads read side by side to find repeats (a batch may hold 500). */
const KEY_READS = 16;
/** Submissions of a batch decided and reserved side by side (their node appends group-commit). */
const PREPARE_CONCURRENCY = 64;

/** Answers of one submitted workload and of a batch (their schemas: common/command-results.ts). */
export type { SubmitWorkloadResult, SubmitWorkloadsResult };

interface Fresh {
  readonly index: number;
  readonly workloadId: string;
  readonly item: BatchItem;
  readonly context: CommandContext;
}

/**
 * A batch of one namespace: every check of every workload first (namespace, idempotency conflicts, types, device
 * limits), then the quota of all of them held in one decision (all or none), then each decided and reserved, and
 * every new stream created in one appendMany. Bad input or an over-quota batch writes nothing. A single
 * submission is a batch of one (`single`): its quota is held under the workload's own context, and it is timed
 * as a submission (hcn_submission_stage_seconds total and quota) rather than as a batch.
 */
@CommandHandler(SubmitWorkloadsCommand)
export class SubmitWorkloadsHandler implements ICommandHandler<
  SubmitWorkloadsCommand,
  SubmitWorkloadsResult
> {
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
    items: given,
    single,
    wholly,
  }: SubmitWorkloadsCommand): Promise<SubmitWorkloadsResult> {
    const items = given.map((item) => ({ ...item, spec: sealSecrets(item.spec, this.config) }));
    const namespace = oneNamespace(items);
    requireNamespace(principal, namespace);
    checkRequestCaps(
      items.map((item) => item.spec),
      this.config.maxInstancesPerRequest,
    );
    const ids = items.map((item) => submittedWorkloadId(namespace, item.idempotencyKey));
    const answers: Array<SubmitWorkloadResult | undefined> = await this.repeatedAnswers(items, ids);
    const fresh: Fresh[] = [];
    for (const [index, item] of items.entries()) {
      if (answers[index]) continue;
      const refusal = workloadDecider.validate(submitOf(ids[index], item), workloadDecider.initialState);
      if (refusal) throw refusal; // unsupported types
      checkDeviceRequestFits(item.spec.devices, this.view.deviceLimits());
      checkHostPaths(item.spec, this.config.containerHostPaths);
      fresh.push({
        index,
        workloadId: ids[index],
        item,
        context: userContext(principal, this.clock, ids[index]),
      });
    }
    if (fresh.length > 0) {
      const one = single && fresh.length === 1;
      const stage = this.metrics.submissionStageSeconds;
      const timer = one ? undefined : this.metrics.batchSubmissions.startTimer();
      const total = one ? stage.startTimer({ stage: 'total' }) : undefined;
      try {
        const batchContext = one ? fresh[0].context : userContext(principal, this.clock, randomUUID());
        const holds = fresh.map((f) => ({ workloadId: f.workloadId, spec: f.item.spec }));
        const quota = one ? stage.startTimer({ stage: 'quota' }) : undefined;
        await holdQuotaAll(this.hot, namespace, holds, batchContext, this.config.defaultQuota);
        quota?.();
        const failed = one ? 'submission failed' : 'batch failed';
        const prepared = await this.prepareAll(fresh, batchContext, failed);
        if (wholly) await this.refuseUnplaced(prepared, fresh, batchContext);
        await this.commit(prepared, fresh, answers);
        timer?.({ outcome: 'created' });
        total?.();
      } catch (error) {
        timer?.({ outcome: error instanceof HcnError ? error.code : 'failed' });
        throw error;
      }
    }
    const workloads = answers.map((a) => a as SubmitWorkloadResult);
    return { namespace, created: workloads.filter((w) => w.created).length, workloads };
  }

  /** Answers for the items whose idempotency key names an existing workload (a different spec is a conflict). */
  private async repeatedAnswers(
    items: readonly BatchItem[],
    ids: readonly string[],
  ): Promise<Array<SubmitWorkloadResult | undefined>> {
    const answers: Array<SubmitWorkloadResult | undefined> = new Array(items.length);
    const keyed = [...items.keys()].filter((i) => items[i].idempotencyKey);
    await inParallel(keyed, KEY_READS, async (i) => {
      const existing = await loadWorkload(this.store, ids[i]);
      if (existing.state.exists)
        answers[i] = answerRepeated(ids[i], existing, items[i].spec, items[i].idempotencyKey);
    });
    return answers;
  }

  /** Decides and reserves every fresh item; on a failure gives back what was reserved and held, and throws. */
  private async prepareAll(
    fresh: readonly Fresh[],
    batchContext: CommandContext,
    reason: string,
  ): Promise<PreparedSubmission[]> {
    const prepared: PreparedSubmission[] = new Array(fresh.length);
    const failures: unknown[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < fresh.length && failures.length === 0) {
        const at = next++;
        const { workloadId, item, context } = fresh[at];
        try {
          prepared[at] = await this.placement.prepareSubmission(
            workloadId,
            submitOf(workloadId, item),
            context,
          );
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PREPARE_CONCURRENCY, fresh.length) }, worker));
    if (failures.length === 0) return prepared;
    for (const p of prepared.filter(Boolean)) await this.placement.releasePrepared(p, reason);
    await this.releaseQuota(fresh, batchContext, reason);
    throw failures[0];
  }

  /** Placed whole or refused (a delegation): an unschedulable instance gives back reservations and quota. */
  private async refuseUnplaced(
    prepared: readonly PreparedSubmission[],
    fresh: readonly Fresh[],
    batchContext: CommandContext,
  ): Promise<void> {
    const events = prepared.flatMap((p) => p.events);
    const unplaced = events.find((e) => e.type === 'WorkloadUnschedulable');
    if (unplaced?.type !== 'WorkloadUnschedulable') return;
    const reason = 'not placed whole';
    for (const p of prepared) await this.placement.releasePrepared(p, reason);
    await this.releaseQuota(fresh, batchContext, reason);
    const { detail, reasons } = unplaced.data;
    throw new HcnError('WORKLOAD.UNSCHEDULABLE', detail, { reasons });
  }

  /** Creates the streams; a lost idempotency race answers the winner, another failure gives back and throws. */
  private async commit(
    prepared: readonly PreparedSubmission[],
    fresh: readonly Fresh[],
    answers: Array<SubmitWorkloadResult | undefined>,
  ): Promise<void> {
    const committed = await this.placement.commitSubmissions(prepared);
    const failed: Fresh[] = [];
    let firstError: Error | undefined;
    for (const [at, outcome] of committed.entries()) {
      const { index, workloadId, item } = fresh[at];
      if (outcome.ok) {
        const { state, revision } = outcome.workload;
        answers[index] = {
          workloadId,
          status: workloadStatus(state),
          revision,
          events: ['WorkloadSubmitted'],
          created: true,
        };
      } else if (outcome.error instanceof HcnError && outcome.error.code === 'WORKLOAD.ALREADY_SUBMITTED') {
        answers[index] = answerRepeated(
          workloadId,
          await loadWorkload(this.store, workloadId),
          item.spec,
          item.idempotencyKey,
        );
      } else {
        failed.push(fresh[at]);
        firstError ??= outcome.error;
      }
    }
    this.metrics.workloadsSubmitted.inc(fresh.length - failed.length);
    if (!firstError) return;
    await this.releaseQuota(failed, fresh[0].context, 'submission failed');
    throw firstError;
  }

  private async releaseQuota(
    items: readonly Fresh[],
    context: CommandContext,
    reason: string,
  ): Promise<void> {
    for (const { workloadId, item } of items) {
      const { namespace } = item.spec;
      await this.hot.quotas
        .handle(quotaStream(namespace), { type: 'Release', namespace, workloadId, reason }, context)
        .catch(() => undefined);
    }
  }
}

function submitOf(workloadId: string, { spec, idempotencyKey, delegatedFrom }: BatchItem) {
  return {
    type: 'Submit' as const,
    workloadId,
    spec,
    idempotencyKey,
    ...(delegatedFrom ? { delegatedFrom } : {}),
  };
}

/** The batch's one namespace; a batch over several, or one repeating an idempotency key, is refused. */
function oneNamespace(items: readonly BatchItem[]): string {
  const namespaces = [...new Set(items.map((i) => i.spec.namespace))];
  if (namespaces.length !== 1)
    throw new HcnError('WORKLOAD.BATCH_NAMESPACES', 'A batch holds workloads of one namespace', {
      namespaces,
    });
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const { idempotencyKey: key } of items) {
    if (key !== null && seen.has(key)) repeated.push(key);
    if (key !== null) seen.add(key);
  }
  if (repeated.length > 0)
    throw new HcnError('WORKLOAD.BATCH_DUPLICATE_KEY', 'An idempotency key appears twice in the batch', {
      idempotencyKeys: [...new Set(repeated)].slice(0, 8),
    });
  return namespaces[0];
}
