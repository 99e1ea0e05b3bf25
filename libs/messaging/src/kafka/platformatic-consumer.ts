import type { BaseOptions, Message, MessagesStream, Consumer as PltConsumer } from '@platformatic/kafka';
import { ConsumerStoppedError, defaultDeadLetterTopic, handleWithDeadLetters } from '../dead-letter';
import type { ConsumeOptions, IncomingMessage, TopicMessages, TopicSpec } from '../port';
import { KafkaMessageBusOptions, withTimeout } from './kafka-options';
import type { PlatformaticKafka } from './platformatic-message-bus';

type HcnConsumer = PltConsumer<Buffer, Buffer, string, string>;
type HcnStream = MessagesStream<Buffer, Buffer, string, string>;
type HcnRecord = Message<Buffer, Buffer, string, string>;

/**
 * Records the stream buffers ahead (its high-water mark) and takes per round, split by partition into batches. A
 * round's batches are handled before the next round starts, so this bounds the batch sizes, and with them the
 * throughput of handlers that pay per call (1,024, the library's default, held the hub's ingestion near 2,500
 * reports/s where kafkajs's batches keep up with 6,000).
 */
const MAX_RECORDS_PER_ROUND = 16384;
/** Longest pause before a failed member joins again. */
const MAX_REJOIN_BACKOFF_MS = 5000;
/** kafkajs's round-robin assignor: the same name lets members of both clients share a group. */
const ASSIGNOR = { name: 'RoundRobinAssigner', version: 0 };

/** What a group member needs from its bus. */
export interface PlatformaticConsumerDeps {
  readonly lib: PlatformaticKafka;
  readonly connection: BaseOptions;
  readonly bus: KafkaMessageBusOptions;
  readonly consume: ConsumeOptions;
  createTopics(topics: readonly TopicSpec[]): Promise<void>;
  publishAll(batches: TopicMessages[]): Promise<void>;
  translate(error: unknown, operation: string): Error;
}

/**
 * Joins a consumer group through @platformatic/kafka and handles its partitions until stopped. A member whose
 * stream or group membership fails (broker gone, fetch refused) is closed and a new one joins, with a backoff;
 * nothing handled but uncommitted is lost, since the new member starts from the committed offsets (at-least-once).
 * Resolves once the first member has its partitions and its starting offsets.
 */
export async function startPlatformaticConsumer(
  deps: PlatformaticConsumerDeps,
): Promise<{ stop(): Promise<void> }> {
  const deadLetterTopic = deps.consume.deadLetterTopic ?? defaultDeadLetterTopic;
  const topics = deps.consume.topics.flatMap((t) => [t, deadLetterTopic(t)]);
  await deps.createTopics([...new Set(topics)].map((name) => ({ name })));
  let session: GroupSession;
  try {
    session = await GroupSession.open(deps);
  } catch (error) {
    throw deps.translate(error, 'consume');
  }
  let stopped = false;
  let wakeSleeper: () => void = () => undefined;
  const stopping = new Promise<void>((resolve) => (wakeSleeper = resolve));
  const supervise = async (): Promise<void> => {
    for (let backoff = 250; ; backoff = Math.min(backoff * 2, MAX_REJOIN_BACKOFF_MS)) {
      await session.run().catch(() => undefined); // the member failed: another one joins
      await session.close();
      for (;;) {
        if (stopped) return;
        await pauseUnlessStopped(stopping, backoff);
        if (stopped) return;
        const next = await GroupSession.open(deps).catch(() => undefined);
        if (next) {
          session = next;
          break;
        }
        backoff = Math.min(backoff * 2, MAX_REJOIN_BACKOFF_MS);
      }
      if (stopped) {
        await session.close();
        return;
      }
      backoff = 125;
    }
  };
  const supervision = supervise();
  return {
    stop: async () => {
      stopped = true;
      wakeSleeper();
      session.stop();
      await supervision;
    },
  };
}

/** One group membership: a platformatic consumer, its message stream and the loop handling its records. */
class GroupSession {
  /** Per `topic:partition`, the offset after the last record handled here (records before it are duplicates). */
  private readonly handledUpTo = new Map<string, bigint>();
  private failure: Error | undefined;
  private active = true;
  private closed: Promise<void> | undefined;
  private wake: () => void = () => undefined;

  private constructor(
    private readonly consumer: HcnConsumer,
    private readonly stream: HcnStream,
    private readonly deps: PlatformaticConsumerDeps,
  ) {
    const signal = (): void => this.wake();
    const fail = (error: Error): void => {
      this.failure ??= error;
      this.wake();
    };
    stream.on('readable', signal).on('end', signal).on('close', signal).on('error', fail);
    consumer.on('error', fail);
    consumer.on('consumer:group:join', () => {
      for (const key of [...this.handledUpTo.keys()]) {
        const at = key.lastIndexOf(':');
        if (!this.owns(key.slice(0, at), Number(key.slice(at + 1)))) this.handledUpTo.delete(key);
      }
    });
  }

  /** Joins the group and opens the stream from the committed offsets; resolves once the offsets are known. */
  static async open(deps: PlatformaticConsumerDeps): Promise<GroupSession> {
    const { lib, bus, consume } = deps;
    const fetchWait = consume.batchWindowMs ?? bus.fetchMaxWaitMs ?? 100;
    const minBytes = consume.batchWindowMs ? 256 * 1024 : 1;
    const consumer = new lib.Consumer<Buffer, Buffer, string, string>({
      ...deps.connection,
      groupId: consume.groupId,
      sessionTimeout: bus.sessionTimeoutMs ?? 10000,
      heartbeatInterval: bus.groupHeartbeatMs ?? 1000,
      rebalanceTimeout: 60000,
      protocols: [ASSIGNOR],
      autocommit: false,
      maxWaitTime: fetchWait,
      minBytes,
      deserializers: { headerKey: lib.stringDeserializer, headerValue: lib.stringDeserializer },
    });
    consumer.on('error', () => undefined); // until the session listens
    try {
      const stream = await withTimeout(
        consumer.consume({
          topics: [...consume.topics],
          mode: lib.MessagesStreamModes.COMMITTED,
          fallbackMode: consume.fromBeginning
            ? lib.MessagesStreamFallbackModes.EARLIEST
            : lib.MessagesStreamFallbackModes.LATEST,
          autocommit: false,
          maxWaitTime: fetchWait,
          minBytes,
          highWaterMark: MAX_RECORDS_PER_ROUND,
        }),
        bus.joinTimeoutMs ?? 30000,
        `joining consumer group ${consume.groupId}`,
      );
      // the starting offsets: messages published after `consume` resolves are never skipped as "before latest"
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          stream.once('offsets', () => resolve());
          stream.once('error', reject);
        }),
        bus.joinTimeoutMs ?? 30000,
        `reading the offsets of consumer group ${consume.groupId}`,
      );
      return new GroupSession(consumer, stream, deps);
    } catch (error) {
      await withTimeout(leave(consumer), 5000, 'closing').catch(() => undefined);
      throw error;
    }
  }

  /** Handles records until stopped; rejects when the stream or the membership fails. */
  async run(): Promise<void> {
    const concurrency = Math.max(1, this.deps.consume.concurrentPartitions ?? 1);
    for (;;) {
      const records = await this.next();
      if (!records) break;
      await settleAll(byPartition(records), concurrency, (batch) => this.handle(batch));
    }
    if (this.failure) throw this.failure;
    if (this.active) throw new Error('the message stream ended');
  }

  /** Ends the loop after the batches in flight (retries stop waiting); `close` then leaves the group. */
  stop(): void {
    this.active = false;
    this.wake();
  }

  /** Leaves the group and closes the connections (at most 10 s). */
  close(): Promise<void> {
    this.stop();
    this.closed ??= withTimeout(leave(this.consumer), 10000, 'leaving the group').catch(() => undefined);
    return this.closed;
  }

  /** The records the stream holds now (waiting for some); null once stopped, ended or failed. */
  private async next(): Promise<HcnRecord[] | null> {
    while (this.active && !this.failure) {
      const records: HcnRecord[] = [];
      for (let r: HcnRecord | null; records.length < MAX_RECORDS_PER_ROUND && (r = this.stream.read());)
        records.push(r);
      if (records.length > 0) return records;
      if (this.stream.readableEnded || this.stream.destroyed) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return null;
  }

  private owns(topic: string, partition: number): boolean {
    return (
      this.consumer.assignments?.some((a) => a.topic === topic && a.partitions.includes(partition)) ?? false
    );
  }

  /**
   * Handles one partition's records in order and commits the offset after them. Records of a partition this
   * member no longer owns are left to its new owner; records already handled here (fetched again after a
   * rebalance) are skipped.
   */
  private async handle(records: HcnRecord[]): Promise<void> {
    const { topic, partition } = records[0];
    const key = `${topic}:${partition}`;
    if (!this.owns(topic, partition)) {
      this.handledUpTo.delete(key);
      return;
    }
    const from = this.handledUpTo.get(key);
    const fresh = from === undefined ? records : records.filter((r) => r.offset >= from);
    if (fresh.length === 0) return;
    try {
      await handleWithDeadLetters(this.deps.consume, fresh.map(incoming), (b) => this.deps.publishAll(b), {
        running: () => this.active && !this.failure && this.owns(topic, partition),
      });
    } catch (error) {
      if (error instanceof ConsumerStoppedError) return; // not committed: delivered again
      throw error;
    }
    const last = fresh[fresh.length - 1];
    this.handledUpTo.set(key, last.offset + 1n);
    if (this.owns(topic, partition)) await last.commit();
  }
}

/** Waits `ms`, or less when `stopping` resolves first (the timer does not outlive it). */
async function pauseUnlessStopped(stopping: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([stopping, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** Closes the member's streams, leaves the group and closes its connections. */
function leave(consumer: HcnConsumer): Promise<void> {
  return new Promise((resolve, reject) =>
    consumer.close(true, (error) => (error ? reject(error) : resolve())),
  );
}

function incoming(record: HcnRecord): IncomingMessage {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset.toString(),
    key: record.key === undefined || record.key === null ? null : record.key.toString(),
    value: record.value ?? Buffer.alloc(0),
    timestamp: Number(record.timestamp),
    headers: Object.fromEntries([...record.headers].map(([k, v]) => [String(k), String(v ?? '')])),
  };
}

/** Records split by partition, each partition's in offset order. */
function byPartition(records: HcnRecord[]): HcnRecord[][] {
  const batches = new Map<string, HcnRecord[]>();
  for (const r of records) {
    const key = `${r.topic}:${r.partition}`;
    const batch = batches.get(key);
    if (batch) batch.push(r);
    else batches.set(key, [r]);
  }
  return [...batches.values()];
}

/** Runs `work` over `items`, `limit` at a time; after all settled, rethrows the first failure. */
async function settleAll<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}
