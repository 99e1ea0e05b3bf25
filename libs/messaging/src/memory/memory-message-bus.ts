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
  private readonly topics = new Map<string, IncomingMessage[][]>();
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
        log.push({
          topic: batch.topic,
          partition,
          offset: String(log.length),
          key: message.key,
          value: Buffer.isBuffer(message.value) ? message.value : Buffer.from(message.value),
          headers: { ...(message.headers ?? {}) },
        });
      }
    }
    this.wakeAll();
  }

  async consume(options: ConsumeOptions): Promise<Consumer> {
    const group = this.groups.get(options.groupId) ?? new Group();
    this.groups.set(options.groupId, group);
    for (const topic of options.topics) {
      const partitions = this.topic(topic);
      partitions.forEach((log, p) => {
        const key = `${topic}:${p}`;
        if (!group.offsets.has(key)) group.offsets.set(key, options.fromBeginning ? 0 : log.length);
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

  private topic(name: string, partitions = DEFAULT_PARTITIONS): IncomingMessage[][] {
    let logs = this.topics.get(name);
    if (!logs) {
      logs = Array.from({ length: partitions }, () => []);
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
        const batch = this.topic(topic)[partition].slice(committed, committed + MAX_BATCH);
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
        group.offsets.set(key, committed + batch.length);
        delivered = true;
      }
      if (!delivered) await this.wakeup.wait(50);
    }
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
