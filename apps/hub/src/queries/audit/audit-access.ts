import { AuditError, namespaceOfStream, readWorkload } from '@hcn/audit';
import type { RecordedHcnEvent } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { z } from 'zod';
import { Principal, requireNamespace } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';

const workloadId = z.string().uuid();

/**
 * Reads a workload's stream for an audit; a workload of a namespace the token may not see answers exactly like
 * a missing one (404 AUDIT.WORKLOAD_NOT_FOUND).
 */
export async function visibleWorkloadEvents(
  store: EventStore,
  principal: Principal,
  id: string,
): Promise<RecordedHcnEvent[]> {
  const parsed = parseBody(workloadId, id, 'AUDIT.WORKLOAD_ID');
  const events = await readWorkload(store, parsed);
  requireNamespace(principal, namespaceOfStream(events), {
    code: 'AUDIT.WORKLOAD_NOT_FOUND',
    message: `Workload ${parsed} is not in the log`,
  });
  return events;
}

/** Output formats of audit answers. */
export type AuditFormat = 'json' | 'text';

/** Parses `format` (json by default); anything else is AUDIT.FORMAT_INVALID. */
export function parseFormat<F extends string>(value: unknown, allowed: readonly F[]): F {
  if (value === undefined) return allowed[0];
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as F;
  throw new AuditError('AUDIT.FORMAT_INVALID', `format must be one of ${allowed.join(', ')}`, {
    format: value,
  });
}
