import type { WorkloadState } from '@hcn/domain';
import { SiteCallError } from '../../federation/site-client';
import type { Federation } from '../../federation/federation';

/** One allocation's output as the workload logs route answers it (a delegated one: read at its site). */
export interface AllocationLines {
  allocationId: string;
  lines: Array<{ stream: string; line: string }>;
  /** Federation: the site the allocation was delegated to. */
  siteId?: string;
  /** Federation: why that site's output could not be read (its code, or `unreachable`). */
  unavailable?: string;
}

/**
 * The output of an allocation delegated to another site, read there on request (signed with the key the two share);
 * a site that cannot answer leaves the lines empty and says why, the other allocations are answered as usual.
 */
export async function siteLogs(
  federation: Federation,
  state: WorkloadState,
  allocationId: string,
  siteId: string,
  query: { lines: number; stream?: 'stdout' | 'stderr' },
): Promise<AllocationLines> {
  const namespace = state.spec?.namespace ?? '';
  const request = {
    delegationId: allocationId,
    namespace,
    lines: query.lines,
    ...(query.stream ? { stream: query.stream } : {}),
  };
  try {
    if (!federation.controls) return { allocationId, siteId, lines: [], unavailable: 'FEDERATION.OFF' };
    const answer = await federation.controls.logs(siteId, request);
    return { allocationId, siteId, lines: answer.lines };
  } catch (error) {
    const unavailable = error instanceof SiteCallError ? error.code : 'unreachable';
    return { allocationId, siteId, lines: [], unavailable };
  }
}
