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

/** Attempts on a transient error before its messages are dead-lettered after all (about five minutes). */
const MAX_TRANSIENT_ATTEMPTS = 70;
const MAX_BACKOFF_MS = 5000;

async function attempt(options: ConsumeOptions, messages: IncomingMessage[]): Promise<Outcome> {
  const maxAttempts = options.maxAttempts ?? 3;
  let backoff = options.retryBackoffMs ?? 100;
  for (let n = 1; ; n++) {
    try {
      await options.handleBatch(messages);
      return { ok: true };
    } catch (error) {
      if (error instanceof PoisonMessageError) return { ok: false, error };
      const limit = options.isTransient?.(error) ? MAX_TRANSIENT_ATTEMPTS : maxAttempts;
      if (n >= limit) return { ok: false, error };
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
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
): Promise<void> {
  if (messages.length === 0) return;
  const whole = await attempt(options, messages);
  if (whole.ok) return;
  const failed: Array<{ message: IncomingMessage; error: unknown }> = [];
  if (messages.length === 1) failed.push({ message: messages[0], error: whole.error });
  else {
    for (const message of messages) {
      const single = await attempt(options, [message]);
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
