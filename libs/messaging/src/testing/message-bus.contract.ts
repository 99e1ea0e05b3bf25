import { eventually, sleep } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { DLQ_HEADERS } from '../dead-letter';
import { PoisonMessageError } from '../errors';
import type { ConsumeOptions, Consumer, IncomingMessage, MessageBus } from '../port';

/** Builds the bus under test and tears it down. */
export interface MessageBusFixture {
  bus: MessageBus;
  teardown(): Promise<void>;
}

function unique(name: string): string {
  return `${name}-${randomUUID().slice(0, 8)}`;
}

function text(message: IncomingMessage): string {
  return message.value.toString();
}

/** The one contract every MessageBus adapter must pass (Kafka's semantics). */
export function messageBusContract(makeFixture: () => Promise<MessageBusFixture>): void {
  let fixture: MessageBusFixture;
  let bus: MessageBus;
  const consumers: Consumer[] = [];
  beforeAll(async () => {
    fixture = await makeFixture();
    bus = fixture.bus;
  });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
  });
  afterAll(async () => fixture?.teardown());

  async function topicWith(partitions = 3): Promise<string> {
    const topic = unique('t');
    await bus.createTopics([{ name: topic, partitions }]);
    return topic;
  }

  async function collect(
    topic: string,
    groupId: string,
    into: IncomingMessage[],
    fromBeginning = true,
  ): Promise<Consumer> {
    const consumer = await bus.consume({
      groupId,
      topics: [topic],
      fromBeginning,
      handleBatch: async (batch) => void into.push(...batch),
    });
    consumers.push(consumer);
    return consumer;
  }

  /** A group consumer from the start of `topic` with quick retries; `extra` overrides settings. */
  async function consumeFromStart(
    topic: string,
    handleBatch: ConsumeOptions['handleBatch'],
    extra: Partial<ConsumeOptions> = {},
  ): Promise<void> {
    consumers.push(
      await bus.consume({
        groupId: unique('g'),
        topics: [topic],
        fromBeginning: true,
        retryBackoffMs: 10,
        handleBatch,
        ...extra,
      }),
    );
  }

  it('creates topics idempotently', async () => {
    const topic = unique('t');
    await bus.createTopics([{ name: topic, partitions: 2 }]);
    await expect(bus.createTopics([{ name: topic, partitions: 2 }])).resolves.toBeUndefined();
  });

  it('delivers every message once to a group, keeping the order of each key', async () => {
    const topic = await topicWith();
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const sent = Array.from({ length: 40 }, (_, i) => ({
      key: keys[i % keys.length],
      value: `${keys[i % keys.length]}:${i}`,
    }));
    await bus.publish(topic, sent.slice(0, 20));
    const got: IncomingMessage[] = [];
    await collect(topic, unique('g'), got);
    await bus.publishAll([{ topic, messages: sent.slice(20) }]);
    await eventually('all 40 messages', () => got.length >= 40, 20000);
    await sleep(300);
    expect(got.map(text).sort()).toEqual(sent.map((m) => m.value).sort());
    for (const key of keys) {
      const order = got.filter((m) => m.key === key).map((m) => Number(text(m).split(':')[1]));
      expect(order).toEqual([...order].sort((x, y) => x - y));
      expect(new Set(got.filter((m) => m.key === key).map((m) => m.partition)).size).toBe(1);
    }
  });

  it('writes each message once when publishing to topics just created (no copies from retried requests)', async () => {
    const topics = await Promise.all(Array.from({ length: 6 }, () => topicWith(3)));
    const sent = topics.flatMap((topic) => Array.from({ length: 12 }, (_, i) => `${topic}/${i}`));
    await Promise.all(
      topics.map((topic) =>
        bus.publish(
          topic,
          sent.filter((v) => v.startsWith(`${topic}/`)).map((value, i) => ({ key: `k${i}`, value })),
        ),
      ),
    );
    const got: IncomingMessage[] = [];
    consumers.push(
      await bus.consume({
        groupId: unique('g'),
        topics,
        fromBeginning: true,
        handleBatch: async (batch) => void got.push(...batch),
      }),
    );
    await eventually('every message', () => got.length >= sent.length, 20000);
    await sleep(300);
    expect(got.map(text).sort()).toEqual([...sent].sort());
  });

  it('gives each group all messages and splits a group between its members', async () => {
    const topic = await topicWith(4);
    const groupA = unique('g');
    const [a1, a2, b]: IncomingMessage[][] = [[], [], []];
    await collect(topic, groupA, a1);
    await collect(topic, groupA, a2);
    await collect(topic, unique('g'), b);
    const sent = Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, value: `m${i}` }));
    await bus.publish(topic, sent);
    await eventually('group B got all', () => b.length >= 60, 20000);
    await eventually('group A got all', () => a1.length + a2.length >= 60, 20000);
    await sleep(300);
    const groupAValues = [...a1, ...a2].map(text);
    expect(groupAValues.sort()).toEqual(sent.map((m) => m.value).sort());
    expect(b.map(text).sort()).toEqual(sent.map((m) => m.value).sort());
  });

  it('redelivers a message whose handler failed (at-least-once) and goes on', async () => {
    const topic = await topicWith(1);
    const attempts = new Map<string, number>();
    const handled: string[] = [];
    await consumeFromStart(topic, async (batch) => {
      for (const m of batch) {
        const n = (attempts.get(text(m)) ?? 0) + 1;
        attempts.set(text(m), n);
        if (text(m) === 'flaky' && n === 1) throw new Error('transient failure');
      }
      handled.push(...batch.map(text));
    });
    await bus.publish(
      topic,
      ['one', 'flaky', 'two'].map((value) => ({ key: 'k', value })),
    );
    await eventually('all handled', () => handled.includes('two') && handled.includes('flaky'), 20000);
    expect(attempts.get('flaky')).toBeGreaterThanOrEqual(2);
    expect(handled.filter((v) => v === 'flaky').length).toBeGreaterThanOrEqual(1);
  });

  it('commits after handling: a new member of the group starts after the committed offset', async () => {
    const topic = await topicWith(2);
    const group = unique('g');
    const first: IncomingMessage[] = [];
    const consumer = await collect(topic, group, first);
    await bus.publish(
      topic,
      Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `old${i}` })),
    );
    await eventually('first batch handled', () => first.length >= 10, 20000);
    await sleep(500);
    await consumer.stop();
    consumers.splice(consumers.indexOf(consumer), 1);
    await bus.publish(
      topic,
      Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `new${i}` })),
    );
    const second: IncomingMessage[] = [];
    await collect(topic, group, second);
    await eventually('new messages handled', () => second.length >= 5, 20000);
    await sleep(300);
    expect(second.map(text).sort()).toEqual(['new0', 'new1', 'new2', 'new3', 'new4']);
  });

  it('dead-letters a poison message with its reason and keeps consuming', async () => {
    const topic = await topicWith(1);
    const handled: string[] = [];
    await consumeFromStart(topic, async (batch) => {
      for (const m of batch)
        if (text(m).startsWith('bad')) throw new PoisonMessageError(`cannot parse ${text(m)}`);
      handled.push(...batch.map(text));
    });
    const dead: IncomingMessage[] = [];
    await collect(`${topic}.dlq`, unique('dlq'), dead);
    await bus.publish(
      topic,
      ['ok1', 'bad1', 'ok2'].map((value) => ({ key: 'same', value, headers: { origin: 'spec' } })),
    );
    await eventually(
      'good messages handled',
      () => handled.includes('ok1') && handled.includes('ok2'),
      20000,
    );
    await eventually('poison dead-lettered', () => dead.length >= 1, 20000);
    expect(handled).not.toContain('bad1');
    expect(dead.map(text)).toEqual(['bad1']);
    expect(dead[0].headers[DLQ_HEADERS.reason]).toBe('cannot parse bad1');
    expect(dead[0].headers[DLQ_HEADERS.code]).toBe('BUS.POISON_MESSAGE');
    expect(dead[0].headers[DLQ_HEADERS.topic]).toBe(topic);
    expect(dead[0].headers.origin).toBe('spec');
    await bus.publish(topic, [{ key: 'same', value: 'ok3' }]);
    await eventually('consumer still going', () => handled.includes('ok3'), 20000);
  });

  it('dead-letters a message whose handler keeps failing after the retries', async () => {
    const topic = await topicWith(1);
    const handled: string[] = [];
    await consumeFromStart(
      topic,
      async (batch) => {
        if (batch.some((m) => text(m) === 'doomed')) throw new Error('database says no');
        handled.push(...batch.map(text));
      },
      { maxAttempts: 2 },
    );
    const dead: IncomingMessage[] = [];
    await collect(`${topic}.dlq`, unique('dlq'), dead);
    await bus.publish(
      topic,
      ['a', 'doomed', 'b'].map((value) => ({ key: 'k', value })),
    );
    await eventually('dead-lettered', () => dead.length >= 1, 20000);
    await eventually('others handled', () => handled.includes('a') && handled.includes('b'), 20000);
    expect(dead[0].headers[DLQ_HEADERS.reason]).toBe('database says no');
    expect(dead[0].headers[DLQ_HEADERS.code]).toBe('BUS.HANDLER_FAILED');
  });

  it('retries a transient failure without limit: 200 attempts (the old limit was 70) dead-letter nothing', async () => {
    const topic = await topicWith(1);
    const handled: string[] = [];
    let failures = 0;
    await consumeFromStart(
      topic,
      async (batch) => {
        if (failures < 200) {
          failures++;
          throw new Error('store unavailable');
        }
        handled.push(...batch.map(text));
      },
      { maxAttempts: 2, isTransient: () => true, retryBackoffMs: 1, maxRetryBackoffMs: 5 },
    );
    const dead: IncomingMessage[] = [];
    await collect(`${topic}.dlq`, unique('dlq'), dead);
    await bus.publish(topic, [{ key: 'k', value: 'only' }]);
    await eventually('handled after the outage', () => handled.length >= 1, 20000);
    expect([handled[0], failures, dead]).toEqual(['only', 200, []]);
  });

  it('keeps retrying a batch that fails transiently past maxAttempts, dead-letters nothing and keeps the order', async () => {
    const topic = await topicWith(1);
    const handled: string[] = [];
    let failures = 0;
    await consumeFromStart(
      topic,
      async (batch) => {
        if (failures < 5) {
          failures++;
          throw new Error('store unavailable');
        }
        handled.push(...batch.map(text));
      },
      { maxAttempts: 2, isTransient: () => true },
    );
    const dead: IncomingMessage[] = [];
    await collect(`${topic}.dlq`, unique('dlq'), dead);
    await bus.publish(
      topic,
      ['1', '2', '3'].map((value) => ({ key: 'k', value })),
    );
    await eventually('handled after the outage', () => handled.length >= 3, 20000);
    expect(handled.slice(0, 3)).toEqual(['1', '2', '3']);
    expect(failures).toBe(5);
    expect(dead).toEqual([]);
  });
}
