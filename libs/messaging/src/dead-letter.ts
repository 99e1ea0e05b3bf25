import { HcnError } from '@hcn/contracts';
import { PoisonMessageError } from './errors';
import type { ConsumeOptions, IncomingMessage, OutgoingMessage, TopicMessages } from './port';

/** Headers added to a dead-lettered message. */
export const DLQ_HEADERS = {
  reason: 'hcn-dlq-reason',
  code: 'hcn-dlq-code',
  topic: 'hcn-dlq-source-topic',
  partition: 'hcn-dlq-source-partition',
  offset: 'hcn-dlq-source-offset',
} as const;

/** Default dead-letter topic of a source topic. */
export function defaultDeadLetterTopic(topic: string): string {
  return `${topic}.dlq`;
}

function deadLetter(message: IncomingMessage, error: unknown): OutgoingMessage {
  const reason = error instanceof Error ? error.message : String(error);
  const code = error instanceof HcnError ? error.code : 'BUS.HANDLER_FAILED';
  return deadLetterMessage(message, code, reason);
}

/** A copy of `message` for its dead-letter topic, with the reason, the code and where it came from. */
export function deadLetterMessage(message: IncomingMessage, code: string, reason: string): OutgoingMessage {
  return {
    key: message.key ?? '',
    value: message.value,
    headers: {
      ...message.headers,
      [DLQ_HEADERS.reason]: reason.slice(0, 2000),
      [DLQ_HEADERS.code]: code,
      [DLQ_HEADERS.topic]: message.topic,
      [DLQ_HEADERS.partition]: String(message.partition),
      [DLQ_HEADERS.offset]: message.offset,
    },
  };
}

type Outcome = { ok: true } | { ok: false; error: unknown };

const MAX_BACKOFF_MS = 5000;

/** The consumer stopped while a batch waited for its infrastructure: nothing is committed or dead-lettered. */
export class ConsumerStoppedError extends Error {
  constructor() {
    super('the consumer stopped while its batch was being retried');
  }
}

/** What the adapter lets a batch's retries do meanwhile. */
export interface RetryHooks {
  /** Called while waiting between attempts (Kafka: a group heartbeat, so the member keeps its partitions). */
  readonly keepAlive?: () => Promise<void>;
  /** False once the consumer stops: the batch is given up without committing it. */
  readonly running?: () => boolean;
  /** How often `keepAlive` is called while the handler itself runs (default 1 s). */
  readonly keepAliveEveryMs?: number;
}

/**
 * Runs `work`, calling `keepAlive` every `keepAliveEveryMs` meanwhile: a handler stuck on a store that accepts
 * connections but does not answer must not outlast the group session and cost the member its partitions.
 */
async function keptAlive<T>(work: () => Promise<T>, hooks: RetryHooks): Promise<T> {
  const keepAlive = hooks.keepAlive;
  if (!keepAlive) return work();
  const timer = setInterval(() => void keepAlive().catch(() => undefined), hooks.keepAliveEveryMs ?? 1000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

async function attempt(
  options: ConsumeOptions,
  messages: IncomingMessage[],
  hooks: RetryHooks,
): Promise<Outcome> {
  const maxAttempts = options.maxAttempts ?? 3;
  let backoff = options.retryBackoffMs ?? 100;
  for (let n = 1; ; n++) {
    try {
      await keptAlive(() => options.handleBatch(messages), hooks);
      return { ok: true };
    } catch (error) {
      if (error instanceof PoisonMessageError) return { ok: false, error };
      // infrastructure that will come back: retried without limit, never dead-lettered
      if (!options.isTransient?.(error) && n >= maxAttempts) return { ok: false, error };
      await pause(backoff, hooks);
      backoff = Math.min(backoff * 2, options.maxRetryBackoffMs ?? MAX_BACKOFF_MS);
    }
  }
}

/** Waits `ms`, keeping the member alive every second; throws ConsumerStoppedError once the consumer stops. */
async function pause(ms: number, hooks: RetryHooks): Promise<void> {
  for (let left = ms; left > 0; left -= 1000) {
    if (hooks.running && !hooks.running()) throw new ConsumerStoppedError();
    await new Promise((r) => setTimeout(r, Math.min(1000, left)));
    await hooks.keepAlive?.().catch(() => undefined);
  }
  if (hooks.running && !hooks.running()) throw new ConsumerStoppedError();
}

/**
 * Runs a consumer's handler over one partition's batch with retries; when the batch keeps failing, retries each
 * message alone so that only the poison ones are dead-lettered (with the reason) and the rest are handled.
 * Handlers must be idempotent: a message may be handled again (at-least-once).
 */
export async function handleWithDeadLetters(
  options: ConsumeOptions,
  messages: IncomingMessage[],
  publishAll: (batches: TopicMessages[]) => Promise<void>,
  hooks: RetryHooks = {},
): Promise<void> {
  if (messages.length === 0) return;
  const whole = await attempt(options, messages, hooks);
  if (whole.ok) return;
  const failed: Array<{ message: IncomingMessage; error: unknown }> = [];
  if (messages.length === 1) failed.push({ message: messages[0], error: whole.error });
  else {
    for (const message of messages) {
      const single = await attempt(options, [message], hooks);
      if (!single.ok) failed.push({ message, error: single.error });
    }
  }
  if (failed.length === 0) return;
  const topicOf = options.deadLetterTopic ?? defaultDeadLetterTopic;
  await publishAll(
    failed.map(({ message, error }) => ({
      topic: topicOf(message.topic),
      messages: [deadLetter(message, error)],
    })),
  );
}
