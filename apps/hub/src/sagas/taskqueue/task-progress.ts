import type { TaskView } from '@hcn/domain';
import {
  QUEUE_METER,
  QueueMeter,
  QueueProgress,
  QueueSample,
  queueProgress,
  samplesInWindow,
} from '@hcn/queue-meter';
import { Inject, Injectable } from '@nestjs/common';
import { openRedisUrl } from '../../commands/add-task/seal-redis-urls';
import type { HubConfig } from '../../config';
import { CLOCK, Clock, HUB_CONFIG } from '../../tokens';

/** How often a running task's queues are sampled. */
const SAMPLE_EVERY_MS = 2_000;

/** A running task's progress, or why there is none. */
export type TaskProgressView =
  | (QueueProgress & { readonly sampledAt: string })
  | { readonly unavailable: string; readonly sampledAt: string | null };

interface Track {
  readonly key: string;
  samples: QueueSample[];
  first?: QueueSample;
  lastTry: number;
  error?: string;
}

/**
 * Progress of running tasks that name their Redis queues: samples the input and output lengths (LLEN) every
 * couple of seconds while the saga says a task runs, and derives input left, output done, rate and ETA. Kept in
 * this hub's memory: an observation of Redis, not a fact of the log.
 */
@Injectable()
export class TaskProgress {
  private readonly tracks = new Map<string, Track>();

  constructor(
    @Inject(QUEUE_METER) private readonly meter: QueueMeter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  /** Samples a running task's queues when due (the saga calls it on its passes). */
  async sample(task: TaskView): Promise<void> {
    const { inputRedis, outputRedis, inputQueue, outputQueue } = task.spec;
    if (!inputRedis && !outputRedis) return;
    const key = `${task.taskId}/${task.round}`;
    const now = this.clock().getTime();
    let track = this.tracks.get(task.taskId);
    if (!track || track.key !== key) this.tracks.set(task.taskId, (track = { key, samples: [], lastTry: 0 }));
    if (now - track.lastTry < SAMPLE_EVERY_MS) return;
    track.lastTry = now;
    try {
      const [inputLength, outputLength] = await this.lengthsOf([
        [inputRedis, inputQueue],
        [outputRedis ?? inputRedis, outputQueue],
      ]);
      const sample = { at: now, inputLength, outputLength };
      track.first ??= sample;
      track.samples = samplesInWindow([...track.samples, sample]);
      track.error = undefined;
    } catch (error) {
      track.error = (error as Error).message;
    }
  }

  /** The task's progress as last sampled here, or undefined when it names no Redis queue or was never sampled. */
  progressOf(taskId: string): TaskProgressView | undefined {
    const track = this.tracks.get(taskId);
    if (!track) return undefined;
    const latest = track.samples[track.samples.length - 1];
    const sampledAt = latest ? new Date(latest.at).toISOString() : null;
    if (track.error || !latest) return { unavailable: track.error ?? 'not sampled yet', sampledAt };
    const progress = queueProgress(track.samples, {
      initialInputLength: track.first?.inputLength,
      initialOutputLength: track.first?.outputLength,
    });
    return { ...progress, sampledAt: sampledAt as string };
  }

  /** Stops keeping samples of a task that no longer runs. */
  forget(taskId: string): void {
    this.tracks.delete(taskId);
  }

  /** The length of each (Redis URL, list) pair (0 when either is unnamed): one pipelined call per Redis. */
  private async lengthsOf(
    lists: ReadonlyArray<readonly [string | undefined, string | undefined]>,
  ): Promise<number[]> {
    const byUrl = new Map<string, string[]>();
    for (const [url, queue] of lists) if (url && queue) byUrl.set(url, [...(byUrl.get(url) ?? []), queue]);
    const measured = new Map(
      await Promise.all(
        [...byUrl].map(
          async ([url, queues]) =>
            [url, await this.meter.lengths(openRedisUrl(url, this.config), queues)] as const,
        ),
      ),
    );
    return lists.map(([url, queue]) => (url && queue ? (measured.get(url)?.[queue] ?? 0) : 0));
  }
}
