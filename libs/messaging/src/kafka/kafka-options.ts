import type { ConnectionOptions } from 'node:tls';

/** TLS to the brokers: PEM text of the CA to trust, and of a client certificate and key for mutual TLS. */
export interface KafkaTlsOptions {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  /** Refuse brokers whose certificate the CAs do not vouch for; default true. */
  readonly rejectUnauthorized?: boolean;
}

/** SASL mechanisms the Kafka bus can authenticate with. */
export type KafkaSaslMechanism = 'scram-sha-512' | 'scram-sha-256' | 'plain';

/** SASL credentials of the Kafka bus. */
export interface KafkaSaslOptions {
  readonly mechanism: KafkaSaslMechanism;
  readonly username: string;
  readonly password: string;
}

/** Settings of a Kafka message bus, whichever client library it runs on. */
export interface KafkaMessageBusOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  /** TLS to the brokers: true (the system's CAs) or PEM settings; default none. */
  readonly ssl?: boolean | KafkaTlsOptions;
  /** SASL authentication on connecting; default none. */
  readonly sasl?: KafkaSaslOptions;
  /** How long `consume` waits for the group join; default 30 s. */
  readonly joinTimeoutMs?: number;
  /** Consumer session timeout; default 10 s. */
  readonly sessionTimeoutMs?: number;
  /**
   * How long a consumer without a batch window lets the broker hold an empty fetch (records still return as soon
   * as they arrive); default 100 ms. Every idle consumer asks the broker once per this wait.
   */
  readonly fetchMaxWaitMs?: number;
  /** How often a consumer heartbeats to its group (below a third of the session timeout); default 1 s. */
  readonly groupHeartbeatMs?: number;
}

/** The Kafka client libraries a Kafka message bus can run on (HCN_KAFKA_CLIENT); the first is the default. */
export const KAFKA_CLIENTS = ['kafkajs', 'platformatic'] as const;

/** A Kafka client library: `kafkajs` (KafkaMessageBus) or `platformatic` (PlatformaticKafkaMessageBus). */
export type KafkaClientName = (typeof KAFKA_CLIENTS)[number];

/** Node's TLS settings for `ssl` (undefined: plaintext; true: the system's CAs). */
export function nodeTlsOptions(ssl: KafkaMessageBusOptions['ssl']): ConnectionOptions | boolean | undefined {
  if (ssl === undefined || typeof ssl === 'boolean') return ssl;
  return {
    ...(ssl.ca ? { ca: [ssl.ca] } : {}),
    ...(ssl.cert ? { cert: ssl.cert } : {}),
    ...(ssl.key ? { key: ssl.key } : {}),
    ...(ssl.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: ssl.rejectUnauthorized }),
  };
}

/** Rejects with `Timed out after <ms> ms <what>` unless `promise` settles first. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
