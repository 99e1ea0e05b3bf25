import type { Admin, BaseOptions, Producer, SASLOptions } from '@platformatic/kafka';
import { BusAuthenticationError, BusUnavailableError } from '../errors';
import type {
  Consumer,
  ConsumeOptions,
  MessageBus,
  OutgoingMessage,
  TopicMessages,
  TopicSpec,
} from '../port';
import { KafkaMessageBusOptions, nodeTlsOptions } from './kafka-options';
import { startPlatformaticConsumer } from './platformatic-consumer';

/** The @platformatic/kafka module (an ES module). */
export type PlatformaticKafka = typeof import('@platformatic/kafka');

/** Producer with string header keys and values (keys and values stay buffers). */
type HcnProducer = Producer<Buffer, Buffer, string, string>;

/**
 * Loads @platformatic/kafka, an ES-module-only package, with Node's own require (require of ES modules, Node
 * 20.19+), so that loaders which cannot load ES modules (Jest's) are bypassed; throws BusUnavailableError saying so
 * when this Node cannot.
 */
export function loadPlatformaticKafka(): PlatformaticKafka {
  try {
    // the real `module` built-in: Jest hands its own, whose require cannot load ES modules
    const { createRequire } = process.getBuiltinModule('node:module');
    return createRequire(__filename)('@platformatic/kafka') as PlatformaticKafka;
  } catch (error) {
    throw new BusUnavailableError(
      `HCN_KAFKA_CLIENT=platformatic: @platformatic/kafka cannot be loaded (an ES module: Node 20.19+ loads it; this is ${process.version})`,
      error,
    );
  }
}

/**
 * Message bus on Apache Kafka through @platformatic/kafka (pure JavaScript, maintained): the same contract as
 * KafkaMessageBus (kafkajs) — Java's partitioner (murmur2 with the sign bit masked), acks=all publishing in one
 * request, group consumption per partition with offsets committed after the handler, dead-lettering — and group
 * members that can share a group with kafkajs ones (same assignor name and encodings). Only this file and
 * platformatic-consumer.ts use the library; its errors become BusUnavailableError (BusAuthenticationError when
 * SASL is refused).
 */
export class PlatformaticKafkaMessageBus implements MessageBus {
  private readonly lib: PlatformaticKafka;
  private producer: HcnProducer | undefined;
  private readonly consumers = new Set<Consumer>();

  constructor(private readonly options: KafkaMessageBusOptions) {
    this.lib = loadPlatformaticKafka();
  }

  /** Client settings shared by the producer, the admin and every consumer. */
  connection(suffix = ''): BaseOptions {
    const tls = nodeTlsOptions(this.options.ssl);
    const sasl = this.options.sasl;
    return {
      clientId: `${this.options.clientId ?? 'hcn'}${suffix}`,
      bootstrapBrokers: [...this.options.brokers],
      ...(tls ? { tls: tls === true ? {} : tls } : {}),
      ...(sasl
        ? {
            sasl: {
              mechanism: sasl.mechanism.toUpperCase() as SASLOptions['mechanism'],
              username: sasl.username,
              password: sasl.password,
            },
          }
        : {}),
      connectTimeout: 5000,
      retries: 5,
      retryDelay: 100,
    };
  }

  /** Creates missing topics (per partition count and timestamp type) and waits until each partition has a leader. */
  async createTopics(topics: readonly TopicSpec[]): Promise<void> {
    await this.withAdmin(async (admin) => {
      const existing = new Set(await admin.listTopics());
      const missing = [...new Map(topics.map((t) => [t.name, t])).values()].filter(
        (t) => !existing.has(t.name),
      );
      if (missing.length === 0) return;
      const groups = new Map<string, TopicSpec[]>();
      for (const t of missing) {
        const key = `${t.partitions ?? 4}:${t.brokerTimestamps ? 1 : 0}`;
        groups.set(key, [...(groups.get(key) ?? []), t]);
      }
      for (const specs of groups.values()) {
        try {
          await admin.createTopics({
            topics: specs.map((t) => t.name),
            partitions: specs[0].partitions ?? 4,
            ...(specs[0].brokerTimestamps
              ? { configs: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }
              : {}),
          });
        } catch (error) {
          if (!refusedOnlyAsExisting(error)) throw error; // another client created them meanwhile
        }
      }
      await waitForLeaders(
        admin,
        missing.map((t) => t.name),
      );
    });
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.publishAll([{ topic, messages }]);
  }

  async publishAll(batches: readonly TopicMessages[]): Promise<void> {
    const messages = batches.flatMap((b) =>
      b.messages.map((m) => ({
        topic: b.topic,
        key: Buffer.from(m.key),
        value: typeof m.value === 'string' ? Buffer.from(m.value) : m.value,
        headers: { ...(m.headers ?? {}) },
      })),
    );
    if (messages.length === 0) return;
    try {
      await this.connectedProducer().send({ messages, acks: this.lib.ProduceAcks.ALL });
    } catch (error) {
      throw translatePlatformaticError(error, 'publish', this.options);
    }
  }

  async consume(options: ConsumeOptions): Promise<Consumer> {
    const handle = await startPlatformaticConsumer({
      lib: this.lib,
      connection: this.connection(),
      bus: this.options,
      consume: options,
      createTopics: (t) => this.createTopics(t),
      publishAll: (b) => this.publishAll(b),
      translate: (error, operation) => translatePlatformaticError(error, operation, this.options),
    });
    const consumer: Consumer = {
      stop: async () => {
        this.consumers.delete(consumer);
        await handle.stop();
      },
    };
    this.consumers.add(consumer);
    return consumer;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop().catch(() => undefined)));
    const producer = this.producer;
    this.producer = undefined;
    await producer?.close().catch(() => undefined);
  }

  private connectedProducer(): HcnProducer {
    this.producer ??= new this.lib.Producer<Buffer, Buffer, string, string>({
      ...this.connection(),
      // Java's partitioner, as kafkajs's default: (murmur2(key) & 0x7fffffff) % partitions
      partitioner: this.lib.compatibilityPartitioner,
      acks: this.lib.ProduceAcks.ALL,
      // a Produce request carries every partition led by one broker, and the library sends it again whole when it
      // fails (seen: its answer could not be read) or one partition answers "stale metadata": without idempotence
      // partitions already written get the records twice; with it the broker drops the copies (producer id, sequence)
      idempotent: true,
      autocreateTopics: true,
      serializers: { headerKey: this.lib.stringSerializer, headerValue: this.lib.stringSerializer },
    });
    return this.producer;
  }

  private async withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = new this.lib.Admin(this.connection('-admin'));
    try {
      return await work(admin);
    } catch (error) {
      throw translatePlatformaticError(error, 'admin', this.options);
    } finally {
      await admin.close().catch(() => undefined);
    }
  }
}

/** Polls the cluster's metadata until every partition of `topics` has a leader (10 s at most). */
async function waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const metadata = await admin.metadata({ topics, forceUpdate: true });
      const ready = topics.every((t) => {
        const topic = metadata.topics.get(t);
        return (
          topic !== undefined && topic.partitions.length > 0 && topic.partitions.every((p) => p.leader >= 0)
        );
      });
      if (ready) return;
    } catch {
      // metadata lags right after a creation: asked again
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Error-like by shape: the library may come from another realm than ours (Jest's sandbox), failing instanceof. */
function isErrorLike(value: unknown): value is Error {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
}

/** Every error (causes and aggregated ones included) of a library error. */
function* errorTree(error: unknown, depth = 0): Generator<Error> {
  if (!isErrorLike(error) || depth > 8) return;
  yield error;
  yield* errorTree((error as { cause?: unknown }).cause, depth + 1);
  for (const inner of (error as { errors?: unknown[] }).errors ?? []) yield* errorTree(inner, depth + 1);
}

function refusedOnlyAsExisting(error: unknown): boolean {
  const ids = [...errorTree(error)]
    .map((e) => (e as { apiId?: string }).apiId)
    .filter((id): id is string => typeof id === 'string');
  return ids.length > 0 && ids.every((id) => id === 'TOPIC_ALREADY_EXISTS');
}

/** BusAuthenticationError when SASL was refused, BusUnavailableError otherwise. */
export function translatePlatformaticError(
  error: unknown,
  operation: string,
  options: KafkaMessageBusOptions,
): Error {
  if (error instanceof BusUnavailableError) return error;
  const tree = [...errorTree(error)];
  const refusal = tree.find(
    (e) =>
      (e as { code?: string }).code === 'PLT_KFK_AUTHENTICATION' ||
      (e as { apiId?: string }).apiId === 'SASL_AUTHENTICATION_FAILED',
  );
  if (refusal) {
    const mechanism = options.sasl?.mechanism.toUpperCase() ?? 'SASL';
    const reason = refusal.message.includes(mechanism) ? refusal.message : `${mechanism}: ${refusal.message}`;
    return new BusAuthenticationError(operation, reason, refusal);
  }
  const detail = tree
    .slice(1)
    .map((e) => e.message)
    .filter((m, i, all) => m && all.indexOf(m) === i)
    .slice(0, 3);
  const message = isErrorLike(error) ? error.message : String(error);
  return new BusUnavailableError(
    `Kafka ${operation} failed: ${message}${detail.length ? ` (${detail.join('; ')})` : ''}`,
    error,
  );
}
