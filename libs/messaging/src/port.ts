/** DI token of the MessageBus port. */
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');

/** A message to publish; messages with the same key keep their order. */
export interface OutgoingMessage {
  readonly key: string;
  readonly value: Buffer | string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Messages for one topic, for publishing to several topics in one request. */
export interface TopicMessages {
  readonly topic: string;
  readonly messages: readonly OutgoingMessage[];
}

/** A consumed message. */
export interface IncomingMessage {
  readonly topic: string;
  readonly partition: number;
  /** Offset within the partition, as a decimal string. */
  readonly offset: string;
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  /** When the broker appended it (ms since the epoch), where the adapter knows. */
  readonly timestamp?: number;
}

/** A topic to create. */
export interface TopicSpec {
  readonly name: string;
  readonly partitions?: number;
  /** Messages are stamped with the broker's append time, not the producer's clock (Kafka: LogAppendTime). */
  readonly brokerTimestamps?: boolean;
}

/** Settings of a group consumer. */
export interface ConsumeOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Where a group without committed offsets starts: the oldest message (true) or new ones only (false). */
  readonly fromBeginning?: boolean;
  /**
   * Handles messages of one partition in order. Offsets are committed only after it resolves (at-least-once).
   * Throw PoisonMessageError to dead-letter a message at once; other errors are retried, then dead-lettered.
   */
  readonly handleBatch: (messages: IncomingMessage[]) => Promise<void>;
  /** Dead-letter topic; default `<topic>.dlq`. */
  readonly deadLetterTopic?: (sourceTopic: string) => string;
  /** Attempts of a failing handler before its messages are dead-lettered one by one; default 3. */
  readonly maxAttempts?: number;
  /**
   * Errors for which the batch is retried without limit (backoff capped at 5 s; the member stays in its group and
   * the partition waits) instead of being dead-lettered: infrastructure that will come back, as opposed to a
   * message that is bad.
   */
  readonly isTransient?: (error: unknown) => boolean;
  /** Pause between attempts; default 100 ms, doubled each time. */
  readonly retryBackoffMs?: number;
  /** Longest pause between attempts; default 5 s. */
  readonly maxRetryBackoffMs?: number;
  /**
   * How long the broker may hold a fetch to fill bigger batches (fewer, larger handler calls at the cost of
   * latency); default 100 ms.
   */
  readonly batchWindowMs?: number;
  /**
   * Batches of this many partitions handled at the same time (each partition still in order), so one batch's
   * I/O overlaps another's work; default 1. The in-process adapter delivers its partitions one at a time.
   */
  readonly concurrentPartitions?: number;
}

/** A running group consumer. */
export interface Consumer {
  /** Leaves the group after the batch in flight; uncommitted messages go to the group's next member. */
  stop(): Promise<void>;
}

/** The message bus port: keyed, partitioned topics with group consumption (Kafka's model). */
export interface MessageBus {
  /** Creates topics that do not exist yet; existing ones are left as they are. */
  createTopics(topics: readonly TopicSpec[]): Promise<void>;
  /** Publishes messages to one topic in one request. */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /** Publishes to several topics in one request. */
  publishAll(batches: readonly TopicMessages[]): Promise<void>;
  /** Joins a consumer group; resolves once the consumer has its partitions. */
  consume(options: ConsumeOptions): Promise<Consumer>;
  /** Stops consumers and disconnects. */
  close(): Promise<void>;
}
