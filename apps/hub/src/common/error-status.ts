import { HcnError, ValidationError } from '@hcn/contracts';

const EXACT: Record<string, number> = {
  'EVENTSTORE.WRONG_EXPECTED_REVISION': 409,
  'EVENTSTORE.UNAVAILABLE': 503,
  'EVENTSTORE.DATA_REJECTED': 400,
  'BUS.UNAVAILABLE': 503,
  'AUTH.FORBIDDEN': 403,
  'AUTH.NAMESPACE_FORBIDDEN': 403,
  'QUOTA.EXCEEDED': 422,
  'QUOTA.DEVICE_AMOUNT_UNDECLARED': 422,
  'WORKLOAD.TYPE_UNSUPPORTED': 422,
  'WORKLOAD.DEVICE_REQUEST_TOO_LARGE': 422,
  'WORKLOAD.HOST_PATH_NOT_ALLOWED': 422,
  'WORKLOAD.BATCH_NAMESPACES': 400,
  'WORKLOAD.BATCH_DUPLICATE_KEY': 400,
  'TEMPLATE.UNKNOWN_PARAMETER': 400,
  'TEMPLATE.MISSING_PARAMETER': 400,
  'TEMPLATE.UNDECLARED_PARAMETER': 400,
  'DOMAIN.PARENT_NOT_FOUND': 422,
  'DOMAIN.HEAD_NODE_NOT_FOUND': 422,
  'DOMAIN.CYCLE': 422,
  'AUDIT.PERIOD_INVALID': 400,
  'AUDIT.INSTANT_INVALID': 400,
  'AUDIT.FORMAT_INVALID': 400,
  'AUDIT.WORKLOAD_NOT_FOUND': 404,
  'AUDIT.HOP_NOT_FOUND': 404,
  'AUDIT.DECISION_NOT_FOUND': 404,
  'AUDIT.NODE_NOT_FOUND': 404,
  'AUDIT.DOMAIN_NOT_FOUND': 404,
  'AUDIT.QUOTA_NOT_FOUND': 404,
  'AUDIT.STREAM_NOT_FOUND': 404,
};

/** The one mapping from dotted error codes to HTTP status codes. */
export function statusForError(error: HcnError): number {
  if (error instanceof ValidationError) return 400;
  if (EXACT[error.code]) return EXACT[error.code];
  if (error.code.endsWith('.NOT_FOUND')) return 404;
  if (error.code.startsWith('AUTH.')) return 401;
  if (error.code.startsWith('REQUEST.') || error.code.startsWith('EVENT.')) return 400;
  return 409;
}
