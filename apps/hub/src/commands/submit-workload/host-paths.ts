import { HcnError, WorkloadSpec, isHostPath, underAllowedDirectory } from '@hcn/contracts';

/** The host paths a spec binds into a container: its volumes' host sources, a container model's `modelPath`. */
function boundHostPaths(spec: WorkloadSpec): string[] {
  const volumes = (spec.volumes ?? []).map((v) => v.source).filter(isHostPath);
  const model =
    spec.type === 'model' && spec.runtime === 'container' && spec.modelPath ? [spec.modelPath] : [];
  return [...volumes, ...model];
}

/**
 * Refuses container volumes (and container models' `modelPath`, mounted read-only) that bind a host path outside
 * the directories this hub allows (HCN_CONTAINER_HOST_PATHS); named volumes always pass. Agents check their own list
 * again when they run it.
 */
export function checkHostPaths(spec: WorkloadSpec, allowed: readonly string[]): void {
  const denied = boundHostPaths(spec).filter((source) => !underAllowedDirectory(source, allowed));
  if (denied.length === 0) return;
  throw new HcnError(
    'WORKLOAD.HOST_PATH_NOT_ALLOWED',
    `Host paths outside the allowed directories (${allowed.join(', ') || 'none allowed'}): ${denied.join(', ')}`,
    { denied, allowed: [...allowed] },
  );
}
