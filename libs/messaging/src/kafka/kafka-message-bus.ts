import {
  Admin,
  Kafka,
  KafkaJSError,
  KafkaJSSASLAuthenticationError,
  Partitioners,
  Producer,
  SASLOptions,
  logLevel,
} from 'kafkajs';
import { ConsumerStoppedError, defaultDeadLetterTopic, handleWithDeadLetters } from '../dead-letter';
import { BusAuthenticationError, BusUnavailableError } from '../errors';
import { KafkaMessageBusOptions, nodeTlsOptions, withTimeout } from './kafka-options';
import type {
  ConsumeOptions,
  Consumer,
  IncomingMessage,
  MessageBus,
  OutgoingMessage,
  TopicMessages,
  TopicSpec,
} from '../port';

/**
 * Message bus on Apache Kafka through kafkajs: Java-compatible partitioner, `sendBatch` publishing, `eachBatch`
 * consumption with explicit offset commits after the handler, dead-lettering of poison messages. Only this
 * file imports kafkajs; its errors become BusUnavailableError (BusAuthenticationError when SASL is refused).
 */
export class KafkaMessageBus implements MessageBus {
  private readonly kafka: Kafka;
  private producer: Producer | undefined;
  private connecting: Promise<Producer> | undefined;
  private readonly consumers = new Set<Consumer>();

  constructor(private readonly options: KafkaMessageBusOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'hcn',
      brokers: [...options.brokers],
      ssl: nodeTlsOptions(options.ssl),
      sasl: options.sasl ? ({ ...options.sasl } as SASLOptions) : undefined,
      logLevel: logLevel.NOTHING,
      retry: { retries: 5, initialRetryTime: 100 },
    });
  }

  /**
   * Creates missing topics. Right after a creation the broker's metadata may briefly lag ("does not host this
   * topic-partition"); such transient answers are retried a few times before they count as failures.
   */
  async createTopics(topics: readonly TopicSpec[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.createMissingTopics(topics);
      } catch (error) {
        const transient = /does not host this topic-partition|leader|not available|UNKNOWN_TOPIC/i.test(
          (error as Error).message,
        );
        if (!transient || attempt >= 6) throw error;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  }

  private async createMissingTopics(topics: readonly TopicSpec[]): Promise<void> {
    await this.withAdmin(async (admin) => {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(t.name));
      if (missing.length === 0) return;
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t.name,
          numPartitions: t.partitions ?? 4,
          ...(t.brokerTimestamps
            ? { configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }
            : {}),
        })),
      });
    });
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.publishAll([{ topic, messages }]);
  }

  async publishAll(batches: readonly TopicMessages[]): Promise<void> {
    const producer = await this.connectedProducer();
    try {
      await producer.sendBatch({
        acks: -1,
        topicMessages: batches.map((b) => ({
          topic: b.topic,
          messages: b.messages.map((m) => ({
            key: m.key,
            value: m.value,
            headers: { ...(m.headers ?? {}) },
          })),
        })),
      });
    } catch (error) {
      throw translate(error, 'publish');
    }
  }

  async consume(options: ConsumeOptions): Promise<Consumer> {
    const deadLetterTopic = options.deadLetterTopic ?? defaultDeadLetterTopic;
    const topics = options.topics.flatMap((t) => [t, deadLetterTopic(t)]);
    await this.createTopics([...new Set(topics)].map((name) => ({ name })));
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: this.options.sessionTimeoutMs ?? 10000,
      heartbeatInterval: this.options.groupHeartbeatMs ?? 1000,
      maxWaitTimeInMs: options.batchWindowMs ?? this.options.fetchMaxWaitMs ?? 100,
      minBytes: options.batchWindowMs ? 256 * 1024 : 1,
      retry: { retries: 10 },
    });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [...options.topics],
        fromBeginning: options.fromBeginning ?? false,
      });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.concurrentPartitions ?? 1,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          if (!isRunning() || isStale() || batch.messages.length === 0) return;
          const messages: IncomingMessage[] = batch.messages.map((m) => ({
            topic: batch.topic,
            partition: batch.partition,
            offset: m.offset,
            key: m.key ? m.key.toString() : null,
            value: m.value ?? Buffer.alloc(0),
            timestamp: Number(m.timestamp),
            headers: Object.fromEntries(
              Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(v ?? '')]),
            ),
          }));
          try {
            await handleWithDeadLetters(options, messages, (b) => this.publishAll(b), {
              keepAlive: heartbeat,
              running: () => isRunning() && !isStale(),
            });
          } catch (error) {
            if (error instanceof ConsumerStoppedError) return; // not committed: delivered again
            throw error;
          }
          const last = messages[messages.length - 1].offset;
          resolveOffset(last);
          await consumer.commitOffsets([
            { topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() },
          ]);
          await heartbeat();
        },
      });
      await withTimeout(
        joined,
        this.options.joinTimeoutMs ?? 30000,
        `joining consumer group ${options.groupId}`,
      );
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw translate(error, 'consume');
    }
    const handle: Consumer = {
      stop: async () => {
        this.consumers.delete(handle);
        await consumer.disconnect();
      },
    };
    this.consumers.add(handle);
    return handle;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop().catch(() => undefined)));
    await this.producer?.disconnect().catch(() => undefined);
    this.producer = undefined;
  }

  private connectedProducer(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer);
    this.connecting ??= (async () => {
      const producer = this.kafka.producer({
        createPartitioner: Partitioners.DefaultPartitioner,
        allowAutoTopicCreation: true,
      });
      try {
        await producer.connect();
      } catch (error) {
        this.connecting = undefined;
        throw translate(error, 'connect');
      }
      this.producer = producer;
      return producer;
    })();
    return this.connecting;
  }

  private async withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      return await work(admin);
    } catch (error) {
      throw translate(error, 'admin');
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}

/** The SASL refusal somewhere in a kafkajs error's causes (the retrier wraps it), if any. */
function authenticationRefusal(error: unknown): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    if (
      current instanceof KafkaJSSASLAuthenticationError ||
      current.name === 'KafkaJSSASLAuthenticationError'
    )
      return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function translate(error: unknown, operation: string): Error {
  if (error instanceof BusUnavailableError) return error;
  const refusal = authenticationRefusal(error);
  if (refusal) return new BusAuthenticationError(operation, refusal.message, refusal);
  const message = error instanceof Error ? error.message : String(error);
  const kind = error instanceof KafkaJSError ? 'Kafka' : 'Kafka client';
  return new BusUnavailableError(`${kind} ${operation} failed: ${message}`, error);
}
