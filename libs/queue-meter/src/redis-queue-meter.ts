import Redis from 'ioredis';
import { RedisErrorCode, RedisQueueError } from './errors';
import type { QueueMeter } from './port';
import { redactRedisUrl, redisUrlProblem } from '@hcn/contracts';

/** Limits of the Redis adapter. */
export interface RedisQueueMeterOptions {
  /** How long opening a connection may take; default 2000 ms. */
  readonly connectTimeoutMs?: number;
  /** How long one round trip (the pipelined LLENs) may take; default 2000 ms. */
  readonly commandTimeoutMs?: number;
  /** Connections kept open, one per URL, least recently used closed first; default 32. */
  readonly maxConnections?: number;
}

interface Connection {
  readonly client: Redis;
  readonly ready: Promise<void>;
  /** The last error the client emitted (a refused AUTH surfaces here; the call itself sees "Connection is closed"). */
  lastError?: Error;
}

/** Raised when a whole call outlives connect + command timeouts (ioredis may take seconds more to give up). */
class DeadlineExceeded extends Error {}

/** Reply errors Redis answers for a refused login (ACL users and `requirepass`). */
const AUTH_REPLY = /^(NOAUTH|WRONGPASS|NOPERM)\b|invalid password|invalid username-password/i;

/**
 * QueueMeter over Redis with `ioredis`: one connection per URL (bounded, least recently used closed first),
 * short connect and command timeouts, no offline queue and no reconnect loop: a connection that failed is
 * dropped and the next call opens a fresh one. All LLENs of a call go in one pipeline.
 */
export class RedisQueueMeter implements QueueMeter {
  private readonly connections = new Map<string, Connection>();
  private readonly connectTimeoutMs: number;
  private readonly commandTimeoutMs: number;
  private readonly maxConnections: number;

  constructor(options: RedisQueueMeterOptions = {}) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 2000;
    this.maxConnections = Math.max(1, options.maxConnections ?? 32);
  }

  async lengths(redisUrl: string, queueNames: readonly string[]): Promise<Record<string, number>> {
    const problem = redisUrlProblem(redisUrl);
    if (problem)
      throw new RedisQueueError('REDIS.BAD_URL', `Redis URL ${problem}`, { url: redactRedisUrl(redisUrl) });
    const names = [...new Set(queueNames)];
    if (names.length === 0) return {};
    const connection = this.connection(redisUrl);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      const ms = this.connectTimeoutMs + this.commandTimeoutMs;
      timer = setTimeout(() => reject(new DeadlineExceeded(`no answer within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([measure(connection, names), deadline]);
    } catch (error) {
      const closed = error instanceof DeadlineExceeded || /Connection is closed/.test(String(error));
      const translated = translate(closed && connection.lastError ? connection.lastError : error, redisUrl);
      if (translated.code !== 'REDIS.NOT_A_LIST') this.drop(redisUrl, connection);
      throw translated;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => quit(c.client)));
  }

  /** The cached connection for a URL (most recently used last), opening one when there is none. */
  private connection(url: string): Connection {
    const cached = this.connections.get(url);
    if (cached && cached.client.status !== 'end' && cached.client.status !== 'close') {
      this.connections.delete(url);
      this.connections.set(url, cached);
      return cached;
    }
    if (cached) this.drop(url, cached);
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: this.connectTimeoutMs,
      commandTimeout: this.commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableReadyCheck: true,
      connectionName: 'hcn-queue-meter',
    });
    const connection: Connection = { client, ready: client.connect() };
    client.on('error', (error: Error) => (connection.lastError = error)); // surfaced through the calls
    connection.ready.catch(() => undefined);
    this.connections.set(url, connection);
    while (this.connections.size > this.maxConnections) {
      const [oldestUrl, oldest] = this.connections.entries().next().value as [string, Connection];
      this.drop(oldestUrl, oldest);
    }
    return connection;
  }

  private drop(url: string, connection: Connection): void {
    if (this.connections.get(url) === connection) this.connections.delete(url);
    void quit(connection.client);
  }
}

/** LLEN of each name in one pipeline, once the connection is ready. */
async function measure(connection: Connection, names: string[]): Promise<Record<string, number>> {
  await connection.ready;
  const pipeline = connection.client.pipeline();
  for (const name of names) pipeline.llen(name);
  const replies = (await pipeline.exec()) ?? [];
  const out: Record<string, number> = {};
  names.forEach((name, i) => {
    const [error, length] = replies[i] ?? [new Error('no reply'), null];
    if (error) throw Object.assign(error, { queue: name });
    out[name] = Number(length);
  });
  return out;
}

async function quit(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // fall through to a hard disconnect
    }
  }
  client.disconnect();
}

/** A vendor error as a RedisQueueError; the URL in messages and details is redacted. */
function translate(error: unknown, url: string): RedisQueueError {
  if (error instanceof RedisQueueError) return error;
  const where = redactRedisUrl(url);
  const message = error instanceof Error ? error.message : String(error);
  const queue = (error as { queue?: string } | undefined)?.queue;
  const isReply = error instanceof Error && error.name === 'ReplyError';
  const at = (code: RedisErrorCode, text: string): RedisQueueError =>
    new RedisQueueError(code, text, { url: where, ...(queue ? { queue } : {}), cause: message });
  if (isReply && AUTH_REPLY.test(message))
    return at('REDIS.AUTH_FAILED', `Redis at ${where} refused the credentials`);
  if (isReply && /^WRONGTYPE\b/.test(message))
    return at('REDIS.NOT_A_LIST', `Redis key ${queue ?? '?'} at ${where} holds something other than a list`);
  if (isReply && /DB index is out of range|invalid DB index/i.test(message))
    return at('REDIS.BAD_URL', `Redis at ${where} has no such database`);
  if (isReply) return at('REDIS.FAILED', `Redis at ${where} answered an error: ${message}`);
  return at('REDIS.UNREACHABLE', `Redis at ${where} cannot be reached: ${message}`);
}
