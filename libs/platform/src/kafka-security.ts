import { KAFKA_CLIENTS, KafkaClientName, KafkaMessageBusOptions, KafkaSaslMechanism } from '@hcn/messaging';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, envBoolean, parseConfig } from './config';

/** TLS and SASL settings of the Kafka clients, as the Kafka message bus takes them, and the client library. */
export type KafkaSecurity = Pick<KafkaMessageBusOptions, 'ssl' | 'sasl'> & {
  /** HCN_KAFKA_CLIENT: the client library of the Kafka bus; DEFAULT_KAFKA_CLIENT when absent. */
  readonly client?: KafkaClientName;
};

/** The Kafka client library used when HCN_KAFKA_CLIENT is not set (see README, "Kafka client"). */
export const DEFAULT_KAFKA_CLIENT: KafkaClientName = 'kafkajs';

/** The SASL mechanisms KAFKA_SASL_MECHANISM accepts (case-insensitive). */
export const KAFKA_SASL_MECHANISMS = [
  'scram-sha-512',
  'scram-sha-256',
  'plain',
] as const satisfies readonly KafkaSaslMechanism[];

const unsetIfBlank = (v: unknown): unknown => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalText = z.preprocess(unsetIfBlank, z.string().optional());

/**
 * The KAFKA_SSL* and KAFKA_SASL* environment variables (and HCN_KAFKA_CLIENT), checked together: a mechanism needs a username and a
 * password, credentials need a mechanism, a client certificate needs its key, certificate files need KAFKA_SSL.
 */
export const kafkaSecurityEnvSchema = z
  .object({
    KAFKA_SSL: z.preprocess(unsetIfBlank, envBoolean(false)),
    KAFKA_SSL_CA_FILE: optionalText,
    KAFKA_SSL_CERT_FILE: optionalText,
    KAFKA_SSL_KEY_FILE: optionalText,
    KAFKA_SASL_MECHANISM: z.preprocess(
      (v) => (typeof unsetIfBlank(v) === 'string' ? (v as string).trim().toLowerCase() : unsetIfBlank(v)),
      z
        .enum(
          KAFKA_SASL_MECHANISMS,
          `KAFKA_SASL_MECHANISM must be one of ${KAFKA_SASL_MECHANISMS.join(', ')}`,
        )
        .optional(),
    ),
    KAFKA_SASL_USERNAME: optionalText,
    KAFKA_SASL_PASSWORD: optionalText,
    KAFKA_SASL_PASSWORD_FILE: optionalText,
    HCN_KAFKA_CLIENT: z.preprocess(
      (v) => (typeof unsetIfBlank(v) === 'string' ? (v as string).trim().toLowerCase() : unsetIfBlank(v)),
      z
        .enum(
          KAFKA_CLIENTS,
          `HCN_KAFKA_CLIENT must be one of ${KAFKA_CLIENTS.join(', ')} (the Kafka client library; default ${DEFAULT_KAFKA_CLIENT})`,
        )
        .optional(),
    ),
  })
  .superRefine((c, ctx) => {
    const problem = (path: string, message: string): void =>
      void ctx.addIssue({ code: 'custom', path: [path], message });
    const password = c.KAFKA_SASL_PASSWORD !== undefined || c.KAFKA_SASL_PASSWORD_FILE !== undefined;
    if (c.KAFKA_SASL_MECHANISM) {
      if (!c.KAFKA_SASL_USERNAME)
        problem(
          'KAFKA_SASL_USERNAME',
          `required when KAFKA_SASL_MECHANISM is set (${c.KAFKA_SASL_MECHANISM})`,
        );
      if (!password)
        problem(
          'KAFKA_SASL_PASSWORD',
          `KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE is required when KAFKA_SASL_MECHANISM is set (${c.KAFKA_SASL_MECHANISM})`,
        );
    } else if (c.KAFKA_SASL_USERNAME || password)
      problem(
        'KAFKA_SASL_MECHANISM',
        `required when KAFKA_SASL_USERNAME or a password is set: one of ${KAFKA_SASL_MECHANISMS.join(', ')}`,
      );
    if (c.KAFKA_SASL_PASSWORD !== undefined && c.KAFKA_SASL_PASSWORD_FILE !== undefined)
      problem('KAFKA_SASL_PASSWORD_FILE', 'set KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE, not both');
    if (c.KAFKA_SSL_CERT_FILE !== undefined && c.KAFKA_SSL_KEY_FILE === undefined)
      problem(
        'KAFKA_SSL_KEY_FILE',
        'required with KAFKA_SSL_CERT_FILE (the client certificate needs its key)',
      );
    if (c.KAFKA_SSL_KEY_FILE !== undefined && c.KAFKA_SSL_CERT_FILE === undefined)
      problem(
        'KAFKA_SSL_CERT_FILE',
        'required with KAFKA_SSL_KEY_FILE (the key needs its client certificate)',
      );
    const files = (['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'] as const).filter(
      (name) => c[name] !== undefined,
    );
    if (files.length > 0 && !c.KAFKA_SSL)
      problem('KAFKA_SSL', `must be true when ${files.join(', ')} ${files.length > 1 ? 'are' : 'is'} set`);
  });

/** Reads a file named by a variable (a function, for specs); throws with the system's reason. */
export type ReadTextFile = (path: string) => string;

/**
 * Kafka TLS/SASL settings and the client library (HCN_KAFKA_CLIENT) from the environment, with the PEM and password files they name read now (at start-up):
 * throws ConfigError naming each bad variable, an unreadable or non-PEM file included. `{}` when nothing is set.
 */
export function loadKafkaSecurity(
  what: string,
  env: NodeJS.ProcessEnv,
  readFile: ReadTextFile = (path) => readFileSync(path, 'utf8'),
): KafkaSecurity {
  const c = parseConfig(what, kafkaSecurityEnvSchema, env);
  const problems: string[] = [];
  const read = (variable: string, path: string | undefined, check: (text: string) => string | undefined) => {
    if (path === undefined) return undefined;
    let text: string;
    try {
      text = readFile(path);
    } catch (error) {
      problems.push(`${variable}: cannot read ${path}: ${(error as Error).message}`);
      return undefined;
    }
    const wrong = check(text);
    if (wrong) problems.push(`${variable}: ${path} ${wrong}`);
    return wrong ? undefined : text;
  };
  const pem = (kind: string) => (text: string) =>
    /-----BEGIN [A-Z0-9 ]+-----/.test(text) ? undefined : `holds no PEM ${kind} (-----BEGIN ...-----)`;
  const ca = read('KAFKA_SSL_CA_FILE', c.KAFKA_SSL_CA_FILE, pem('certificate'));
  const cert = read('KAFKA_SSL_CERT_FILE', c.KAFKA_SSL_CERT_FILE, pem('certificate'));
  const key = read('KAFKA_SSL_KEY_FILE', c.KAFKA_SSL_KEY_FILE, pem('private key'));
  const filedPassword = read('KAFKA_SASL_PASSWORD_FILE', c.KAFKA_SASL_PASSWORD_FILE, (text) =>
    text.replace(/\r?\n$/, '') === '' ? 'is empty' : undefined,
  );
  if (problems.length > 0) throw new ConfigError(what, problems);
  const password = c.KAFKA_SASL_PASSWORD ?? filedPassword?.replace(/\r?\n$/, '');
  return {
    ...(c.HCN_KAFKA_CLIENT ? { client: c.HCN_KAFKA_CLIENT } : {}),
    ...(c.KAFKA_SSL ? { ssl: ca || cert || key ? { ca, cert, key } : true } : {}),
    ...(c.KAFKA_SASL_MECHANISM && c.KAFKA_SASL_USERNAME && password !== undefined
      ? { sasl: { mechanism: c.KAFKA_SASL_MECHANISM, username: c.KAFKA_SASL_USERNAME, password } }
      : {}),
  };
}

/** One line saying how the Kafka clients connect and through which library (for start-up logs; never the password). */
export function describeKafkaSecurity(security: KafkaSecurity): string {
  const tls = security.ssl ? 'TLS' : 'plaintext';
  const how = security.sasl ? `${tls}, SASL ${security.sasl.mechanism} as ${security.sasl.username}` : tls;
  return `${how}, client ${security.client ?? DEFAULT_KAFKA_CLIENT}`;
}
