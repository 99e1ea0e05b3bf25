import {
  runtimeOf,
  type AgentCommand,
  type ContainerPlacement,
  type EventDataOf,
  type ServicePlacement,
  type WorkloadSpec,
} from '@hcn/contracts';

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
      ...(runtimeOf(spec) === 'container' ? { container: containerPlacement(spec) } : {}),
      ...(spec.type === 'service' ? { service: servicePlacement(spec) } : {}),
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
    // a container's ports all have a containerPort (the spec's rules)
    ports: (spec.ports ?? []).flatMap(({ containerPort, ...port }) =>
      containerPort === undefined ? [] : [{ ...port, containerPort }],
    ),
    volumes: spec.volumes ?? [],
  };
}

/** What a service needs beyond its runtime: its named ports (host ports for a process) and its probes. */
function servicePlacement(spec: WorkloadSpec): ServicePlacement {
  return {
    ports: (spec.ports ?? []).flatMap((port) =>
      port.name === undefined ? [] : [{ ...port, name: port.name }],
    ),
    ...(spec.readinessProbe ? { readinessProbe: spec.readinessProbe } : {}),
    ...(spec.livenessProbe ? { livenessProbe: spec.livenessProbe } : {}),
  };
}
