import { HcnError, MAX_WORKLOAD_SPEC_BYTES, WorkloadSpec, serializedSpecBytes } from '@hcn/contracts';

/**
 * Refuses a request whose specs are too large or ask for too many instances, before anything is read or written:
 * a spec over MAX_WORKLOAD_SPEC_BYTES as JSON (413 WORKLOAD.SPEC_TOO_LARGE, naming the batch item), more replicas
 * in all than `maxInstances` (422 WORKLOAD.TOO_MANY_INSTANCES, HCN_MAX_INSTANCES_PER_REQUEST).
 */
export function checkRequestCaps(specs: readonly WorkloadSpec[], maxInstances: number): void {
  const instances = specs.reduce((sum, spec) => sum + spec.replicas, 0);
  if (instances > maxInstances) {
    throw new HcnError(
      'WORKLOAD.TOO_MANY_INSTANCES',
      `The request asks for ${instances} instances in all; at most ${maxInstances} per request`,
      { instances, limit: maxInstances },
    );
  }
  for (const [index, spec] of specs.entries()) {
    const bytes = serializedSpecBytes(spec);
    if (bytes <= MAX_WORKLOAD_SPEC_BYTES) continue;
    const which = specs.length > 1 ? `Workload ${index} (${spec.name})` : `Workload ${spec.name}`;
    throw new HcnError(
      'WORKLOAD.SPEC_TOO_LARGE',
      `${which}: its spec is ${bytes} bytes as JSON; at most ${MAX_WORKLOAD_SPEC_BYTES}`,
      { ...(specs.length > 1 ? { index } : {}), name: spec.name, bytes, limit: MAX_WORKLOAD_SPEC_BYTES },
    );
  }
}
