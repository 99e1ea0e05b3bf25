import type { AgentCommand, ContainerPlacement, EventDataOf, WorkloadSpec } from '@hcn/contracts';

/** The `run` command for a placement: what the agent needs to start the process. */
export function placementCommand(
  commandId: string,
  placed: EventDataOf<'AllocationPlaced'>,
  spec: WorkloadSpec,
): AgentCommand {
  return {
    commandId,
    nodeId: placed.nodeId,
    kind: 'run',
    placement: {
      workloadId: placed.workloadId,
      allocationId: placed.allocationId,
      instance: placed.instance,
      attempt: placed.attempt,
      command: spec.command ?? '',
      args: spec.args,
      env: spec.env,
      ...(spec.secretEnv && Object.keys(spec.secretEnv).length > 0 ? { secretEnv: spec.secretEnv } : {}),
      ...(spec.workingDir ? { workingDir: spec.workingDir } : {}),
      stopGraceSeconds: spec.stopGraceSeconds,
      ...(placed.devices ? { devices: placed.devices } : {}),
      limits: {
        cpuMillis: spec.resources.cpuMillis,
        memoryBytes: spec.resources.memoryBytes,
        ...(spec.pidsLimit ? { pidsLimit: spec.pidsLimit } : {}),
      },
      ...(spec.type === 'container' ? { container: containerPlacement(spec) } : {}),
    },
  };
}

/** What a container needs beyond a process: the image and its options, the reservation as limits. */
function containerPlacement(spec: WorkloadSpec): ContainerPlacement {
  return {
    namespace: spec.namespace,
    image: spec.image ?? '',
    pullPolicy: spec.pullPolicy ?? 'ifNotPresent',
    ...(spec.user ? { user: spec.user } : {}),
    ports: spec.ports ?? [],
    volumes: spec.volumes ?? [],
  };
}
