import {
  isServiceType,
  runtimeOf,
  servicePortsOf,
  type AgentCommand,
  type ContainerPlacement,
  type EventDataOf,
  type ModelPlacement,
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
      // a model's container (image, mounts) is the agent's to fill in from its configuration
      ...(runtimeOf(spec) === 'container' && spec.type !== 'model'
        ? { container: containerPlacement(spec) }
        : {}),
      ...(isServiceType(spec.type) ? { service: servicePlacement(spec) } : {}),
      ...(spec.type === 'model' ? { model: modelPlacement(spec) } : {}),
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

/** What a service needs beyond its runtime: its named ports (host ports for a process; a model's `http`), its probes. */
function servicePlacement(spec: WorkloadSpec): ServicePlacement {
  return {
    ports: servicePortsOf(spec).flatMap(({ name, containerPort, hostPort, protocol }) =>
      name === undefined
        ? []
        : [
            {
              name,
              ...(containerPort === undefined ? {} : { containerPort }),
              hostPort: hostPort ?? 0,
              protocol: protocol === 'udp' ? ('udp' as const) : ('tcp' as const),
            },
          ],
    ),
    ...(spec.readinessProbe ? { readinessProbe: spec.readinessProbe } : {}),
    ...(spec.livenessProbe ? { livenessProbe: spec.livenessProbe } : {}),
  };
}

/** What a model needs beyond its service block: the framework the agent looks up, where the model is. */
function modelPlacement(spec: WorkloadSpec): ModelPlacement {
  return {
    framework: spec.framework ?? '',
    runtime: runtimeOf(spec),
    namespace: spec.namespace,
    ...(spec.modelPath ? { modelPath: spec.modelPath } : {}),
    ...(spec.modelUrl ? { modelUrl: spec.modelUrl } : {}),
  };
}
