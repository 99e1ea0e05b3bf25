import { allocationEnv, isHostPath, underAllowedDirectory, type ContainerPlacement } from '@hcn/contracts';
import type { ProcessSpec } from '../executors/execution.types';
import { BindMount, ContainerRequest, EngineError } from './engine';

/** Where the vram-guard library appears inside a container that holds a memory slice. */
export const GUARD_IN_CONTAINER = '/opt/hcn/libvramguard.so';

/** Labels every container of an allocation carries (the agent finds its containers by them). */
export const LABELS = {
  allocation: 'hcn.allocation',
  workload: 'hcn.workload',
  namespace: 'hcn.namespace',
  node: 'hcn.node',
  grace: 'hcn.stop-grace-seconds',
  cpu: 'hcn.cpu-millis',
} as const;

/**
 * The CPU quota a container is created with: one below `startCpuMillis` starts with that much and is lowered to
 * its own right after the start. Under a quota of a few millicores runc's init and the first exec inside the
 * container take seconds (about 2 s at 10 millicores against 0.1 s at 250, measured with `podman run --cpus`).
 */
export function startingCpuMillis(cpuMillis: number, startCpuMillis: number): number {
  return cpuMillis > 0 && cpuMillis < startCpuMillis ? startCpuMillis : cpuMillis;
}

/** A device placement as the container sees it: device nodes, driver mounts and the guard, all from the host. */
export interface ContainerDevices {
  readonly deviceNodes: readonly string[];
  readonly mounts: readonly string[];
  /** Host path of the vram-guard library (memory slices). */
  readonly guard?: string;
}

/** One allocation to run as a container. */
export interface ContainerRunSpec extends ProcessSpec {
  readonly container: ContainerPlacement;
  readonly devices?: ContainerDevices;
  /** Binds the agent adds itself (a model's file, read-only): its own choice, so not held to the allowed host paths. */
  readonly mounts?: readonly BindMount[];
}

/** Limits and host policy the agent applies to every container. */
export interface ContainerPolicy {
  /** Host directories volumes may bind (a host path elsewhere fails the allocation). */
  readonly allowedHostPaths: readonly string[];
  readonly pidsLimit: number;
  readonly ulimits: readonly { name: string; soft: number; hard: number }[];
  /** A cgroup per allocation under this parent (absent: the engine's default parent). */
  readonly cgroupParent?: string;
}

/** The container name of an allocation (unique per engine: a second create of it conflicts). */
export function containerName(allocationId: string): string {
  return `hcn-${allocationId}`;
}

/** The engine request for an allocation: the spec's command, env and limits, labels, devices, the guard. */
export function containerRequest(
  spec: ContainerRunSpec,
  policy: ContainerPolicy,
  nodeId: string,
): ContainerRequest {
  const c = spec.container;
  const volumes: BindMount[] = c.volumes.map((v) => {
    if (isHostPath(v.source) && !underAllowedDirectory(v.source, policy.allowedHostPaths))
      throw new EngineError(
        'VOLUME.HOST_PATH_DENIED',
        `host path ${v.source} is not under a directory this agent allows (${policy.allowedHostPaths.join(', ') || 'none'})`,
      );
    return { source: v.source, target: v.target, readOnly: v.readOnly };
  });
  const devices = spec.devices;
  const binds: BindMount[] = [
    ...(devices?.mounts ?? []).map((m) => ({ source: m, target: m, readOnly: true })),
    ...(devices?.guard ? [{ source: devices.guard, target: GUARD_IN_CONTAINER, readOnly: true }] : []),
    ...(spec.mounts ?? []),
  ];
  return {
    name: containerName(spec.allocationId),
    image: c.image,
    ...(spec.command ? { entrypoint: [spec.command] } : {}),
    ...(spec.args.length > 0 ? { cmd: spec.args } : {}),
    env: allocationEnv(spec.env, spec),
    labels: {
      [LABELS.allocation]: spec.allocationId,
      [LABELS.workload]: spec.workloadId,
      [LABELS.namespace]: c.namespace,
      [LABELS.node]: nodeId,
      [LABELS.grace]: String(spec.stopGraceSeconds),
      [LABELS.cpu]: String(spec.limits?.cpuMillis ?? 0),
    },
    ...(spec.workingDir ? { workingDir: spec.workingDir } : {}),
    ...(c.user ? { user: c.user } : {}),
    ports: c.ports,
    binds,
    volumes,
    devices: (devices?.deviceNodes ?? []).map((d) => ({ hostPath: d, containerPath: d })),
    cpuMillis: spec.limits?.cpuMillis ?? 0,
    memoryBytes: spec.limits?.memoryBytes ?? 0,
    pidsLimit: spec.limits?.pidsLimit ?? policy.pidsLimit,
    ulimits: policy.ulimits,
    ...(policy.cgroupParent ? { cgroupParent: `${policy.cgroupParent}/${spec.allocationId}` } : {}),
  };
}
