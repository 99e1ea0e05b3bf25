import { MemoryMessageBus, TopicMessages } from '@hcn/messaging';
import { performance } from 'node:perf_hooks';
import { DockerEngine } from '../apps/agent/src/containers/docker-engine';
import { LABELS } from '../apps/agent/src/containers/container-request';
import type { ContainerRequest } from '../apps/agent/src/containers/engine';
import { WorkloadRunner } from '../apps/agent/src/workload-runner';

/** Milliseconds since the epoch with sub-millisecond precision (same clock as Date.now()). */
export const wallMs = (): number => performance.timeOrigin + performance.now();

/** When each step of one container start happened (wall ms), as the in-process agent and bus went through it. */
export interface StageTimes {
  /** The hub published the run command on the bus. */
  commandPublished?: number;
  /** The agent's runner received the run command. */
  commandReceived?: number;
  imageCheck?: [number, number];
  create?: [number, number];
  start?: [number, number];
  /** The quota lowered to the container's own after a start with more (below 250 millicores). */
  limitCpu?: [number, number];
  inspect?: [number, number];
  /** The agent published its `started` report on the bus (after the outbox's fsync). */
  reportPublished?: number;
}

type Wrapped = (...args: never[]) => Promise<unknown>;

/**
 * Times the agent's container path in this process by wrapping the engine's calls (DockerEngine's prototype),
 * the runner's `run` and the bus's `publishAll`: a wrapper only reads the clock, so it costs microseconds. Calls are
 * matched to workloads by the container's `hcn.workload` label and id; the image check (which names no workload)
 * goes to the workload whose run command came last, which is exact while one container starts at a time.
 */
export class StageProbe {
  private readonly byWorkload = new Map<string, StageTimes>();
  private readonly workloadOfContainer = new Map<string, string>();
  private lastCommanded: string | undefined;
  private readonly restore: Array<() => void> = [];

  /** Installs the wrappers. */
  install(): this {
    const engine = DockerEngine.prototype as unknown as Record<string, Wrapped>;
    this.wrap(engine, 'hasImage', () => this.lastCommanded, 'imageCheck');
    this.wrap(engine, 'create', (request) => (request as ContainerRequest).labels[LABELS.workload], 'create');
    this.wrap(engine, 'start', (id) => this.workloadOfContainer.get(id as string), 'start');
    this.wrap(engine, 'limitCpu', (id) => this.workloadOfContainer.get(id as string), 'limitCpu');
    this.wrap(engine, 'inspect', (id) => this.workloadOfContainer.get(id as string), 'inspect');
    const created = (id: string, request: ContainerRequest) =>
      this.workloadOfContainer.set(id, request.labels[LABELS.workload]);
    const create = engine.create;
    engine.create = async function (this: unknown, ...args: never[]) {
      const id = (await create.apply(this, args)) as string;
      created(id, args[0] as ContainerRequest);
      return id;
    };
    this.restore.push(() => (engine.create = create));
    const commanded = (workloadId: string) => {
      this.lastCommanded = workloadId;
      this.mark(workloadId).commandReceived ??= wallMs();
    };
    const runner = WorkloadRunner.prototype;
    const run = runner.run;
    runner.run = function (this: WorkloadRunner, command) {
      commanded(command.placement.workloadId);
      return run.call(this, command);
    };
    this.restore.push(() => (runner.run = run));
    const published = (batches: readonly TopicMessages[]) =>
      batches.forEach((batch) => this.onPublish(batch.messages));
    const bus = MemoryMessageBus.prototype;
    const publishAll = bus.publishAll;
    bus.publishAll = function (this: MemoryMessageBus, batches: readonly TopicMessages[]) {
      published(batches);
      return publishAll.call(this, batches);
    };
    this.restore.push(() => (bus.publishAll = publishAll));
    return this;
  }

  /** Removes the wrappers. */
  uninstall(): void {
    this.restore
      .splice(0)
      .reverse()
      .forEach((undo) => undo());
  }

  /** The times recorded for a workload (and forgets them). */
  take(workloadId: string): StageTimes {
    const times = this.byWorkload.get(workloadId) ?? {};
    this.byWorkload.delete(workloadId);
    for (const [id, w] of this.workloadOfContainer) if (w === workloadId) this.workloadOfContainer.delete(id);
    return times;
  }

  private mark(workloadId: string): StageTimes {
    let times = this.byWorkload.get(workloadId);
    if (!times) this.byWorkload.set(workloadId, (times = {}));
    return times;
  }

  /** Wraps an engine method so that its first call for a workload records [start, end]. */
  private wrap(
    target: Record<string, Wrapped>,
    method: string,
    workloadOf: (first: unknown) => string | undefined,
    stage: 'imageCheck' | 'create' | 'start' | 'limitCpu' | 'inspect',
  ): void {
    const original = target[method];
    const times = (first: unknown) => {
      const workload = workloadOf(first);
      const marked = workload ? this.mark(workload) : undefined;
      return marked?.[stage] === undefined ? marked : undefined; // only a workload's first call counts
    };
    target[method] = async function (this: unknown, ...args: never[]) {
      const first = times(args[0]);
      const begun = wallMs();
      try {
        return await original.apply(this, args);
      } finally {
        if (first) first[stage] = [begun, wallMs()];
      }
    };
    this.restore.push(() => (target[method] = original));
  }

  /** Run commands (hub -> agent) and `started` reports (agent -> hub) as they are published. */
  private onPublish(messages: TopicMessages['messages']): void {
    for (const message of messages) {
      const text = typeof message.value === 'string' ? message.value : message.value.toString();
      const run = text.includes('"kind":"run"');
      if (!run && !text.includes('"status":"started"')) continue;
      const body = JSON.parse(text) as { workloadId?: string; placement?: { workloadId: string } };
      const workload = run ? body.placement?.workloadId : body.workloadId;
      if (!workload) continue;
      const times = this.mark(workload);
      if (run) times.commandPublished ??= wallMs();
      else times.reportPublished ??= wallMs();
    }
  }
}
