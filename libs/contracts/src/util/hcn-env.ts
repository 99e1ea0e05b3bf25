/** What identifies one allocation to the program it runs. */
export interface AllocationIdentity {
  readonly workloadId: string;
  readonly allocationId: string;
  readonly nodeId: string;
  /** `<workloadId>/<instance>`. */
  readonly instanceId: string;
}

const REFERENCE = /\$(\$?)\(([A-Z_][A-Z0-9_]*)\)/g;

/** The HCN_* variables every allocation gets, HCN_INSTANCE_INDEX being the 0-based instance number. */
export function hcnIdentifiers(id: AllocationIdentity): Record<string, string> {
  return {
    HCN_WORKLOAD_ID: id.workloadId,
    HCN_ALLOCATION_ID: id.allocationId,
    HCN_NODE_ID: id.nodeId,
    HCN_INSTANCE_ID: id.instanceId,
    HCN_INSTANCE_INDEX: id.instanceId.slice(id.instanceId.lastIndexOf('/') + 1),
  };
}

/**
 * A workload's environment with the HCN_* identifiers added, and `$(HCN_…)` references in its values replaced by
 * them (as Kubernetes expands `$(VAR)`: `$$(` stays a literal `$(`, unknown names stay as written). A task queue sets
 * GridCore's `INSTANCE_ID` to `$(HCN_INSTANCE_INDEX)` this way.
 */
export function allocationEnv(
  env: Readonly<Record<string, string>>,
  id: AllocationIdentity,
): Record<string, string> {
  const ids = hcnIdentifiers(id);
  const expanded: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    expanded[name] = value.includes('$')
      ? value.replace(REFERENCE, (whole, escaped: string, ref: string) =>
          escaped ? whole.slice(1) : (ids[ref] ?? whole),
        )
      : value;
  }
  return { ...expanded, ...ids };
}
