import { HcnError } from '@hcn/contracts';

/** Codes a QueueMeter rejects with. */
export type RedisErrorCode =
  'REDIS.BAD_URL' | 'REDIS.UNREACHABLE' | 'REDIS.AUTH_FAILED' | 'REDIS.NOT_A_LIST' | 'REDIS.FAILED';

/** A Redis a task queue names could not be read: a stable dotted code; messages never carry passwords. */
export class RedisQueueError extends HcnError {
  constructor(
    override readonly code: RedisErrorCode,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}
