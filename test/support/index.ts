import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** True when the run is CI's (CI=true): a missing service then fails instead of skipping. */
export const inCi = process.env.CI === 'true' || process.env.CI === '1';

function describeNeeding(service: string, available: string | undefined, skipReason: string | undefined) {
  return (name: string, body: () => void): void => {
    if (available) return describe(name, body);
    const reason = skipReason ?? `${service} was not started (run through npm test)`;
    if (inCi) {
      describe(name, () => {
        it(`needs ${service}`, () => {
          throw new Error(`${service} is required with CI=true but unavailable: ${reason}`);
        });
      });
      return;
    }
    console.warn(`!!! SKIPPING "${name}": ${service} unavailable: ${reason}`);
    describe.skip(name, body);
  };
}

/** `describe` for suites that need the real PostgreSQL server started by `npm test`. */
export const describeWithPostgres = describeNeeding(
  'PostgreSQL',
  process.env.HCN_TEST_DATABASE_URL,
  process.env.HCN_SKIP_POSTGRES,
);

/** `describe` for suites that need the real Kafka broker started by `npm test`. */
export const describeWithKafka = describeNeeding(
  'Kafka',
  process.env.HCN_TEST_KAFKA_BROKERS,
  process.env.HCN_SKIP_KAFKA,
);

/** `describe` for suites that need the SCRAM-SHA-512 listener of the broker `npm test` started (not an external one). */
export const describeWithKafkaSasl = describeNeeding(
  'the Kafka SASL listener',
  process.env.HCN_TEST_KAFKA_SASL_BROKERS,
  process.env.HCN_SKIP_KAFKA ??
    (process.env.HCN_TEST_KAFKA_BROKERS
      ? 'the broker has no SASL listener (KAFKA_BROKERS was set)'
      : undefined),
);

/** `describe` for suites that need the real container engine (podman's Docker API service) started by `npm test`. */
export const describeWithContainers = describeNeeding(
  'a container engine (podman)',
  process.env.HCN_TEST_DOCKER_SOCKET,
  process.env.HCN_SKIP_CONTAINERS,
);

/** `describe` for suites that need the real Redis server (Debian's redis-server) started by `npm test`. */
export const describeWithRedis = describeNeeding(
  'Redis',
  process.env.HCN_TEST_REDIS_URL,
  process.env.HCN_SKIP_REDIS,
);

/** `describe` for suites that need the scikit-learn runtime of the built-in model server (a venv `npm test` makes). */
export const describeWithSklearn = describeNeeding(
  'the scikit-learn runtime',
  process.env.HCN_TEST_SKLEARN_PYTHON,
  process.env.HCN_SKIP_SKLEARN,
);

/** The Python of the scikit-learn runtime `npm test` prepared. */
export function testSklearnPython(): string {
  const python = process.env.HCN_TEST_SKLEARN_PYTHON;
  if (!python) throw new Error('HCN_TEST_SKLEARN_PYTHON is not set');
  return python;
}

/** `redis://127.0.0.1:<port>` of the test Redis (no password; share it: name keys uniquely per spec). */
export function testRedisUrl(): string {
  const url = process.env.HCN_TEST_REDIS_URL;
  if (!url) throw new Error('HCN_TEST_REDIS_URL is not set');
  return url;
}

/** The test engine's socket and the local image the container specs run. */
export function testContainerEngine(): { socketPath: string; image: string } {
  const socketPath = process.env.HCN_TEST_DOCKER_SOCKET;
  const image = process.env.HCN_TEST_IMAGE;
  if (!socketPath || !image) throw new Error('HCN_TEST_DOCKER_SOCKET / HCN_TEST_IMAGE are not set');
  return { socketPath, image };
}

/** Brokers of the test Kafka. */
export function testKafkaBrokers(): string[] {
  const brokers = process.env.HCN_TEST_KAFKA_BROKERS;
  if (!brokers) throw new Error('HCN_TEST_KAFKA_BROKERS is not set');
  return brokers.split(',');
}

/** The SASL_PLAINTEXT listener of the test Kafka and its SCRAM user. */
export function testKafkaSasl(): {
  brokers: string[];
  mechanism: 'scram-sha-512';
  username: string;
  password: string;
} {
  const { HCN_TEST_KAFKA_SASL_BROKERS: brokers, HCN_TEST_KAFKA_SASL_USERNAME: username } = process.env;
  const password = process.env.HCN_TEST_KAFKA_SASL_PASSWORD;
  if (!brokers || !username || !password) throw new Error('HCN_TEST_KAFKA_SASL_* are not set');
  return { brokers: brokers.split(','), mechanism: 'scram-sha-512', username, password };
}

/** A throw-away database on the test server, for one suite or one test. */
export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates a fresh database on the test PostgreSQL server, so suites never share tables. */
export async function createTestDatabase(prefix = 'hcn'): Promise<TestDatabase> {
  const adminUrl = process.env.HCN_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('HCN_TEST_DATABASE_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` returns true, failing with `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for: ${what}`);
}
/** Retries `assertion` (which throws while unmet) until it passes, rethrowing its last error after `timeoutMs`. */
export async function eventuallyExpect(
  assertion: () => void | Promise<void>,
  timeoutMs = 10000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}
export * from './tcp-proxy';
export * from './processes';
export * from './log-invariants';
export * from './queue-workers';
export * from './tls-certs';
export * from './subscription-position';
