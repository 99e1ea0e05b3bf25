import { HcnError, WorkloadSpec, isHostPath, underAllowedDirectory } from '@hcn/contracts';

/**
 * Refuses container volumes that bind a host path outside the directories this hub allows
 * (HCN_CONTAINER_HOST_PATHS); named volumes always pass. Agents check their own list again when they run it.
 */
export function checkHostPaths(spec: WorkloadSpec, allowed: readonly string[]): void {
  const denied = (spec.volumes ?? []).filter(
    (v) => isHostPath(v.source) && !underAllowedDirectory(v.source, allowed),
  );
  if (denied.length === 0) return;
  throw new HcnError(
    'WORKLOAD.HOST_PATH_NOT_ALLOWED',
    `Host paths outside the allowed directories (${allowed.join(', ') || 'none allowed'}): ${denied.map((v) => v.source).join(', ')}`,
    { denied: denied.map((v) => v.source), allowed: [...allowed] },
  );
}
