import { type TaskQueueDefinition, type TaskSpec, type WorkloadSpecInput, isSealed } from '@hcn/contracts';

/** CPU each task instance holds (one core, as GridCore runs one container per core). */
export const TASK_INSTANCE_CPU_MILLIS = 1000;

/** GridCore's environment contract: the names its task images read (sealed Redis URLs go as secrets). */
function gridCoreEnv(
  task: TaskSpec,
  nodeId: string,
): { env: Record<string, string>; secretEnv: Record<string, string> } {
  const optional: Array<[string, string | undefined]> = [
    ['INPUT_REDIS_URL', task.inputRedis],
    ['OUTPUT_REDIS_URL', task.outputRedis],
    ['INPUT_QUEUE', task.inputQueue],
    ['OUTPUT_QUEUE', task.outputQueue],
  ];
  const given = optional.filter((e): e is [string, string] => e[1] !== undefined);
  return {
    env: {
      TASK_NAME: task.name,
      NODE_ID: nodeId,
      // the agent fills in each instance's 0-based index on the node
      INSTANCE_ID: '$(HCN_INSTANCE_INDEX)',
      ...Object.fromEntries(given.filter(([, value]) => !isSealed(value))),
    },
    secretEnv: Object.fromEntries(given.filter(([, value]) => isSealed(value))),
  };
}

/**
 * The workload that runs a task's instances on one node: `instances` replicas of one core each, pinned to the node
 * (its placements still go through every filter and are recorded hop by hop), with GridCore's environment. A node
 * that leaves loses them; nothing reschedules them elsewhere.
 */
export function taskWorkloadSpec(
  queue: TaskQueueDefinition,
  task: TaskSpec,
  nodeId: string,
  instances: number,
): WorkloadSpecInput {
  const constraints = { ...(task.constraints ?? {}), nodes: [nodeId] };
  const runtime = task.image
    ? {
        type: 'container' as const,
        image: task.image,
        ...(task.pullPolicy ? { pullPolicy: task.pullPolicy } : {}),
        ...(task.volumes ? { volumes: task.volumes } : {}),
        ...(task.command ? { command: task.command } : {}),
      }
    : { type: 'process' as const, command: task.command };
  const gridCore = gridCoreEnv(task, nodeId);
  const secrets = Object.keys(gridCore.secretEnv).length > 0 ? { secretEnv: gridCore.secretEnv } : {};
  return {
    name: task.name,
    namespace: queue.namespace,
    ...runtime,
    args: task.args,
    env: { ...task.env, ...gridCore.env },
    ...secrets,
    ...(task.workingDir ? { workingDir: task.workingDir } : {}),
    resources: { cpuMillis: TASK_INSTANCE_CPU_MILLIS, memoryBytes: task.memoryBytes, accelerators: 0 },
    constraints,
    replicas: instances,
    restartPolicy: task.restartPolicy,
    stopGraceSeconds: task.stopGraceSeconds,
  };
}
