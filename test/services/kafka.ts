import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort, waitUntil } from './ports';

/** A Kafka broker the tests can use. */
export interface RunningKafka {
  readonly brokers: string[];
  /** Where a test proxy must listen, and forward to, for clients bootstrapped on `127.0.0.1:<listen>`. */
  readonly proxy?: { readonly listen: number; readonly target: number };
  stop(): Promise<void>;
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
}

function serverProperties(logDir: string, ports: ListenerPorts): string {
  const { broker: brokerPort, controller: controllerPort } = ports;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${brokerPort},PROXIED://127.0.0.1:${ports.proxiedInternal},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${brokerPort},PROXIED://127.0.0.1:${ports.proxy}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT',
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

/** Starts a single-node KRaft broker on loopback and waits until it answers metadata requests. */
export async function startKafka(
  log: (line: string) => void,
  options: KafkaJvmOptions = {},
): Promise<RunningKafka> {
  const started = Date.now();
  const jars = ensureKafkaJars(log);
  const classpath = `${jars}/*`;
  const home = await mkdtemp(join(tmpdir(), 'hcn-kafka-'));
  const ports = {
    broker: await freePort(),
    controller: await freePort(),
    proxiedInternal: await freePort(),
    proxy: await freePort(),
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
  // `--cluster-id=<id>` in one argument: an id that starts with '-' (1 in 64) would read as an option otherwise
  const format = await runToEnd(
    java(
      classpath,
      ['kafka.tools.StorageTool', 'format', `--cluster-id=${clusterId}`, '-c', config, '-g'],
      [log4j],
    ),
  );
  if (format.code !== 0)
    throw new Error(`Kafka: storage format failed (exit ${format.code}): ${format.output}`);
  const broker = java(
    classpath,
    ['kafka.Kafka', config],
    // HCN_KAFKA_JAVA_OPTS: extra JVM options for investigations (e.g. -Xlog:gc:file=/tmp/kafka-gc.log)
    [
      log4j,
      ...JVM_PROFILES[options.jvm ?? 'tests'],
      ...(process.env.HCN_KAFKA_JAVA_OPTS ?? '').split(' ').filter(Boolean),
    ],
  );
  let brokerOutput = '';
  broker.stdout?.on('data', (d) => (brokerOutput = (brokerOutput + d).slice(-20000)));
  broker.stderr?.on('data', (d) => (brokerOutput = (brokerOutput + d).slice(-20000)));
  let exited = false;
  broker.on('exit', () => (exited = true));
  // The broker runs in its own process group; never leave it behind when this process ends.
  const killOnExit = (): void => {
    if (!exited && broker.pid) {
      try {
        process.kill(-broker.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  process.once('exit', killOnExit);
  const brokers = [`127.0.0.1:${brokerPort}`];
  const stop = async (): Promise<void> => {
    if (!exited && broker.pid) {
      const gone = new Promise((r) => broker.once('exit', r));
      process.kill(-broker.pid, 'SIGTERM');
      const timer = setTimeout(() => broker.pid && !exited && process.kill(-broker.pid, 'SIGKILL'), 10000);
      await gone;
      clearTimeout(timer);
    }
    await rm(home, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      'Kafka broker',
      async () => {
        if (exited) throw new Error(`broker exited: ${brokerOutput}`);
        return probeKafka(brokers);
      },
      90000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  log(`Kafka: broker ${brokers[0]} ready in ${Date.now() - started} ms`);
  return { brokers, stop, proxy: { listen: ports.proxy, target: ports.proxiedInternal } };
}

async function probeKafka(brokers: string[]): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'hcn-probe',
    brokers,
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
