import { Wakeup } from '@hcn/contracts';
import { handleWithDeadLetters } from '../dead-letter';
import type {
  ConsumeOptions,
  Consumer,
  IncomingMessage,
  MessageBus,
  OutgoingMessage,
  TopicMessages,
  TopicSpec,
} from '../port';

const DEFAULT_PARTITIONS = 4;
const MAX_BATCH = 500;
/** Messages a partition keeps beyond what every group reading it committed (no group: the newest ones). */
const RETAINED = 10_000;

/** One partition's messages; `base` is the offset of `messages[0]` (what was trimmed before it). */
interface PartitionLog {
  base: number;
  messages: IncomingMessage[];
}

/** The offset the next message of a partition gets. */
const end = (log: PartitionLog): number => log.base + log.messages.length;

/** FNV-1a hash of a key, to pick a partition (same key, same partition). */
function hashKey(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

class Group {
  readonly offsets = new Map<string, number>();
  readonly members: MemoryConsumer[] = [];
  running = false;
  inFlight: Promise<void> = Promise.resolve();
}

class MemoryConsumer implements Consumer {
  stopped = false;
  constructor(
    readonly options: ConsumeOptions,
    private readonly leave: (member: MemoryConsumer) => Promise<void>,
  ) {}

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.leave(this);
  }
}

/**
 * In-process message bus for embedded mode and unit tests: partitioned topics, consumer groups sharing
 * partitions, committed offsets, at-least-once delivery and dead-lettering, like the Kafka adapter.
 */
export class MemoryMessageBus implements MessageBus {
  private readonly topics = new Map<string, PartitionLog[]>();
  private readonly groups = new Map<string, Group>();
  private readonly loops = new Map<string, Promise<void>>();
  private readonly wakeup = new Wakeup();
  private closed = false;

  async createTopics(topics: readonly TopicSpec[]): Promise<void> {
    for (const topic of topics) this.topic(topic.name, topic.partitions);
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.publishAll([{ topic, messages }]);
  }

  async publishAll(batches: readonly TopicMessages[]): Promise<void> {
    if (this.closed) throw new Error('Message bus is closed');
    for (const batch of batches) {
      const partitions = this.topic(batch.topic);
      for (const message of batch.messages) {
        const partition = hashKey(message.key) % partitions.length;
        const log = partitions[partition];
        log.messages.push({
          topic: batch.topic,
          partition,
          offset: String(end(log)),
          key: message.key,
          value: Buffer.isBuffer(message.value) ? message.value : Buffer.from(message.value),
          headers: { ...(message.headers ?? {}) },
          timestamp: Date.now(),
        });
      }
      // commits trim what groups read; here only a partition past its retention (one no live group reads)
      partitions.forEach((log, p) => log.messages.length > RETAINED && this.trim(batch.topic, p));
    }
    this.wakeAll();
  }

  /** Messages held now (all topics and partitions): what trimming keeps bounded. */
  get retainedMessages(): number {
    let count = 0;
    for (const partitions of this.topics.values()) for (const log of partitions) count += log.messages.length;
    return count;
  }

  async consume(options: ConsumeOptions): Promise<Consumer> {
    const group = this.groups.get(options.groupId) ?? new Group();
    this.groups.set(options.groupId, group);
    for (const topic of options.topics) {
      const partitions = this.topic(topic);
      partitions.forEach((log, p) => {
        const key = `${topic}:${p}`;
        if (!group.offsets.has(key)) group.offsets.set(key, options.fromBeginning ? log.base : end(log));
      });
    }
    const member = new MemoryConsumer(options, async (m) => {
      await group.inFlight.catch(() => undefined);
      group.members.splice(group.members.indexOf(m), 1);
    });
    group.members.push(member);
    this.startLoop(options.groupId, group);
    return member;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const group of this.groups.values()) for (const member of [...group.members]) member.stopped = true;
    this.wakeAll();
    await Promise.all(this.loops.values());
  }

  private topic(name: string, partitions = DEFAULT_PARTITIONS): PartitionLog[] {
    let logs = this.topics.get(name);
    if (!logs) {
      logs = Array.from({ length: partitions }, () => ({ base: 0, messages: [] }));
      this.topics.set(name, logs);
    }
    return logs;
  }

  private startLoop(groupId: string, group: Group): void {
    if (group.running) return;
    group.running = true;
    const loop = this.runGroup(group).finally(() => (group.running = false));
    this.loops.set(groupId, loop);
  }

  /** Delivers each partition's pending messages to the member that owns it, committing after each batch. */
  private async runGroup(group: Group): Promise<void> {
    while (!this.closed && group.members.some((m) => !m.stopped)) {
      let delivered = false;
      for (const [key, committed] of group.offsets) {
        const owner = this.ownerOf(group, key);
        if (!owner) continue;
        const [topic, partition] = [
          key.slice(0, key.lastIndexOf(':')),
          Number(key.slice(key.lastIndexOf(':') + 1)),
        ];
        const log = this.topic(topic)[partition];
        const from = Math.max(committed, log.base) - log.base;
        const batch = log.messages.slice(from, from + MAX_BATCH);
        if (batch.length === 0) continue;
        try {
          group.inFlight = handleWithDeadLetters(owner.options, batch, (b) => this.publishAll(b), {
            running: () => !this.closed && !owner.stopped,
          });
          await group.inFlight;
        } catch {
          continue; // dead-lettering failed: not committed, delivered again
        }
        if (owner.stopped) continue;
        group.offsets.set(key, Math.max(committed, log.base) + batch.length);
        this.trim(topic, partition);
        delivered = true;
      }
      if (!delivered) await this.wakeup.wait(50);
    }
  }

  /**
   * Drops what every group reading a partition has committed (as Kafka's retention would, but never a message a
   * group with members still has to read); a partition no live group reads keeps its newest RETAINED messages.
   */
  private trim(topic: string, partition: number): void {
    const log = this.topic(topic)[partition];
    const key = `${topic}:${partition}`;
    const retained = end(log) - RETAINED;
    // a group with no member left keeps only what retention keeps (it resumes from the oldest message kept)
    const committed = [...this.groups.values()].flatMap((g) => {
      const offset = g.offsets.get(key);
      if (offset === undefined) return [];
      return [g.members.some((m) => !m.stopped) ? offset : Math.max(offset, retained)];
    });
    const keepFrom = committed.length > 0 ? Math.min(...committed) : retained;
    const drop = Math.min(log.messages.length, keepFrom - log.base);
    if (drop <= 0) return;
    log.messages.splice(0, drop);
    log.base += drop;
  }

  private ownerOf(group: Group, key: string): MemoryConsumer | undefined {
    const active = group.members.filter(
      (m) => !m.stopped && m.options.topics.includes(key.slice(0, key.lastIndexOf(':'))),
    );
    if (active.length === 0) return undefined;
    const keys = [...group.offsets.keys()];
    return active[keys.indexOf(key) % active.length];
  }

  private wakeAll(): void {
    this.wakeup.notify();
  }
}
