/** DI token of the QueueMeter port. */
export const QUEUE_METER = Symbol('QUEUE_METER');

/** Reads the lengths of Redis lists used as task queues (GridCore's input and output queues). */
export interface QueueMeter {
  /**
   * The length (LLEN) of each named list on the Redis at `redisUrl`, keyed by name; a missing key counts 0.
   * Rejects with a RedisQueueError (`REDIS.*` code) when the URL is bad, the server cannot be reached in time,
   * refuses the credentials, or a key holds something other than a list.
   */
  lengths(redisUrl: string, queueNames: readonly string[]): Promise<Record<string, number>>;
  /** Closes every connection; later calls open new ones. */
  close(): Promise<void>;
}
