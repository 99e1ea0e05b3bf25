import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort, waitUntil } from './ports';

/** The broker's SASL_PLAINTEXT listener and the one SCRAM user created when its storage was formatted. */
export interface KafkaSaslListener {
  readonly brokers: string[];
  readonly mechanism: 'scram-sha-512';
  readonly username: string;
  readonly password: string;
}

/** A Kafka broker the tests can use. */
export interface RunningKafka {
  readonly brokers: string[];
  /** Where a test proxy must listen, and forward to, for clients bootstrapped on `127.0.0.1:<listen>`. */
  readonly proxy?: { readonly listen: number; readonly target: number };
  /** The SCRAM-SHA-512 listener (absent for an external broker given by KAFKA_BROKERS). */
  readonly sasl?: KafkaSaslListener;
  /** Stops the broker and removes its data. */
  stop(): Promise<void>;
}

/** A broker this process started: it can be stopped and started again on the same data and ports. */
export interface LocalKafka extends RunningKafka {
  readonly sasl: KafkaSaslListener;
  /** Stops the broker process (a clean shutdown, SIGKILL after 10 s); its data directory and ports stay. */
  stopBroker(): Promise<void>;
  /** Starts the stopped broker again on the same data and ports, and waits until both listeners answer. */
  startBroker(): Promise<void>;
  /** stopBroker, `downMs` of silence, startBroker. */
  restart(downMs?: number): Promise<void>;
}

/** How the broker's JVM runs. */
export interface KafkaJvmOptions {
  /**
   * `tests` (default): a small heap, the serial collector and C1 only, for a quick start. `bench`: the same with
   * the 1 GiB heap of Kafka's own start script. The bigger young generation makes young pauses rarer (every ~10 s
   * instead of ~2.5 s under the placement benchmark) and full ones (over 100 ms) rarer still. The serial collector
   * stays: G1's parallel pauses take both cores of a two-core box, stalling every other process; and so does C1
   * alone: C2 compiling for minutes after the start took a core for half a second at a time.
   */
  readonly jvm?: 'tests' | 'bench';
}

/** JVM options of each profile. */
const JVM_PROFILES = {
  tests: ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'],
  bench: ['-Xms1g', '-Xmx1g', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'],
} as const;

const KAFKA_VERSION = '3.9.1';
const POM = resolve(__dirname, 'kafka', 'pom.xml');

/** Folder holding the broker's jars, cached between runs (HCN_CACHE_DIR, default ~/.cache/hcn). */
export function kafkaJarDir(): string {
  const cache = process.env.HCN_CACHE_DIR ?? join(homedir(), '.cache', 'hcn');
  return join(cache, `kafka-${KAFKA_VERSION}`, 'libs');
}

/** Fetches Apache Kafka and a reload4j binding from Maven Central with Maven, once. */
export function ensureKafkaJars(log: (line: string) => void): string {
  const dir = kafkaJarDir();
  const marker = join(dir, '.complete');
  if (existsSync(marker)) return dir;
  log(
    `Kafka: fetching kafka_2.13:${KAFKA_VERSION} and its dependencies from Maven Central into ${dir} (first run only)...`,
  );
  mkdirSync(dir, { recursive: true });
  const result = spawnSync(
    'mvn',
    [
      '-B',
      '-q',
      '-f',
      POM,
      'dependency:copy-dependencies',
      `-DoutputDirectory=${dir}`,
      '-DincludeScope=runtime',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (result.error)
    throw new Error(`Kafka: cannot run Maven (mvn) to fetch the broker: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`Kafka: Maven failed to fetch the broker jars (exit ${result.status})`);
  log(`Kafka: ${readdirSync(dir).length} jars cached`);
  writeFileSync(marker, new Date().toISOString());
  return dir;
}

interface ListenerPorts {
  broker: number;
  controller: number;
  /** Listener reached only through a test proxy (to cut a client off the broker). */
  proxiedInternal: number;
  proxy: number;
  /** SASL_PLAINTEXT listener with SCRAM-SHA-512. */
  sasl: number;
}

function serverProperties(logDir: string, ports: ListenerPorts): string {
  const { broker: brokerPort, controller: controllerPort } = ports;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${brokerPort},PROXIED://127.0.0.1:${ports.proxiedInternal},SASL_PLAINTEXT://127.0.0.1:${ports.sasl},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${brokerPort},PROXIED://127.0.0.1:${ports.proxy},SASL_PLAINTEXT://127.0.0.1:${ports.sasl}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    // SCRAM users live in the cluster metadata (created by `format --add-scram`); no authorizer: any user may do all
    'sasl.enabled.mechanisms=SCRAM-SHA-512',
    'listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-512',
    'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    `log.dirs=${logDir}`,
    'num.partitions=4',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=true',
    'log.flush.interval.messages=9223372036854775807',
    '',
  ].join('\n');
}

function java(classpath: string, args: string[], extraOpts: string[] = []): ChildProcess {
  return spawn('java', ['-Xms256m', '-Xmx768m', ...extraOpts, '-cp', classpath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

function runToEnd(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return new Promise((resolveRun, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, output }));
  });
}

/** The SCRAM user every locally started broker has. */
const SASL_USER = 'hcn-test';

/**
 * Starts a single-node KRaft broker on loopback and waits until it answers metadata requests, on its PLAINTEXT
 * listener and on its SASL_PLAINTEXT one (SCRAM-SHA-512, user `hcn-test` with a random password).
 */
export async function startKafka(
  log: (line: string) => void,
  options: KafkaJvmOptions = {},
): Promise<LocalKafka> {
  const started = Date.now();
  const jars = ensureKafkaJars(log);
  const classpath = `${jars}/*`;
  const home = await mkdtemp(join(tmpdir(), 'hcn-kafka-'));
  const ports = {
    broker: await freePort(),
    controller: await freePort(),
    proxiedInternal: await freePort(),
    proxy: await freePort(),
    sasl: await freePort(),
  };
  const brokerPort = ports.broker;
  const config = join(home, 'server.properties');
  writeFileSync(config, serverProperties(join(home, 'data'), ports));
  writeFileSync(
    join(home, 'log4j.properties'),
    'log4j.rootLogger=WARN, stderr\nlog4j.appender.stderr=org.apache.log4j.ConsoleAppender\nlog4j.appender.stderr.Target=System.err\nlog4j.appender.stderr.layout=org.apache.log4j.PatternLayout\nlog4j.appender.stderr.layout.ConversionPattern=[kafka] %p %m%n\n',
  );
  const log4j = `-Dlog4j.configuration=file:${join(home, 'log4j.properties')}`;
  const clusterId = randomBytes(16).toString('base64url');
  const sasl: KafkaSaslListener = {
    brokers: [`127.0.0.1:${ports.sasl}`],
    mechanism: 'scram-sha-512',
    username: SASL_USER,
    password: randomBytes(18).toString('hex'), // hex: nothing the --add-scram syntax would read as a separator
  };
  // `--cluster-id=<id>` in one argument: an id that starts with '-' (1 in 64) would read as an option otherwise
  const format = await runToEnd(
    java(
      classpath,
      [
        'kafka.tools.StorageTool',
        'format',
        `--cluster-id=${clusterId}`,
        '-c',
        config,
        '-g',
        '--add-scram',
        `SCRAM-SHA-512=[name=${SASL_USER},password=${sasl.password}]`,
      ],
      [log4j],
    ),
  );
  if (format.code !== 0)
    throw new Error(`Kafka: storage format failed (exit ${format.code}): ${format.output}`);
  const brokers = [`127.0.0.1:${brokerPort}`];
  let broker: ChildProcess | undefined;
  let exited = true;
  let brokerOutput = '';
  // The broker runs in its own process group; never leave it behind when this process ends.
  process.once('exit', () => {
    if (!exited && broker?.pid) {
      try {
        process.kill(-broker.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  const stopBroker = async (): Promise<void> => {
    const current = broker;
    if (exited || !current?.pid) return;
    const pid = current.pid;
    const gone = new Promise((r) => current.once('exit', r));
    process.kill(-pid, 'SIGTERM');
    const timer = setTimeout(() => !exited && process.kill(-pid, 'SIGKILL'), 10000);
    await gone;
    clearTimeout(timer);
  };
  const startBroker = async (): Promise<void> => {
    if (!exited) return;
    const child = java(
      classpath,
      ['kafka.Kafka', config],
      // HCN_KAFKA_JAVA_OPTS: extra JVM options for investigations (e.g. -Xlog:gc:file=/tmp/kafka-gc.log)
      [
        log4j,
        ...JVM_PROFILES[options.jvm ?? 'tests'],
        ...(process.env.HCN_KAFKA_JAVA_OPTS ?? '').split(' ').filter(Boolean),
      ],
    );
    broker = child;
    exited = false;
    brokerOutput = '';
    child.stdout?.on('data', (d) => (brokerOutput = (brokerOutput + d).slice(-20000)));
    child.stderr?.on('data', (d) => (brokerOutput = (brokerOutput + d).slice(-20000)));
    child.on('exit', () => {
      if (broker === child) exited = true;
    });
    await waitUntil(
      'Kafka broker',
      async () => {
        if (exited) throw new Error(`broker exited: ${brokerOutput}`);
        return (await probeKafka(brokers)) && (await probeKafka(sasl.brokers, sasl));
      },
      90000,
    );
  };
  const stop = async (): Promise<void> => {
    await stopBroker();
    await rm(home, { recursive: true, force: true });
  };
  try {
    await startBroker();
  } catch (error) {
    await stop();
    throw error;
  }
  log(`Kafka: broker ${brokers[0]} (SASL ${sasl.brokers[0]}) ready in ${Date.now() - started} ms`);
  return {
    brokers,
    sasl,
    stop,
    stopBroker,
    startBroker,
    restart: async (downMs = 0) => {
      await stopBroker();
      await new Promise((r) => setTimeout(r, downMs));
      await startBroker();
    },
    proxy: { listen: ports.proxy, target: ports.proxiedInternal },
  };
}

async function probeKafka(brokers: string[], sasl?: KafkaSaslListener): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'hcn-probe',
    brokers,
    ...(sasl
      ? { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } }
      : {}),
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 && cluster.controller !== null;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Uses KAFKA_BROKERS when set (after checking it answers), else starts a local broker. */
export async function startKafkaForTests(
  log: (line: string) => void,
  options: KafkaJvmOptions = {},
): Promise<RunningKafka> {
  const external = process.env.KAFKA_BROKERS;
  if (external) {
    const brokers = external
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean);
    if (!(await probeKafka(brokers))) throw new Error(`KAFKA_BROKERS=${external} does not answer`);
    log('Kafka: using KAFKA_BROKERS');
    return { brokers, stop: async () => undefined };
  }
  return startKafka(log, options);
}
