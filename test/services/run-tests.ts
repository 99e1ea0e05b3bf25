import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureChromium } from './chromium';
import { TEST_IMAGE, startContainerEngineForTests } from './containers';
import { RunningKafka, startKafkaForTests } from './kafka';
import { RunningPostgres, startPostgresForTests } from './postgres';
import { RunningRedis, startRedisForTests } from './redis';
import { ensureSklearnRuntime, type RunningEngine } from '@hcn/platform';

/**
 * `npm test` entry: starts the backing services the selected suites need (PostgreSQL, Kafka, podman, Redis),
 * runs Jest with their addresses in the environment, stops them. With CI=true a service that cannot start fails
 * the run.
 */
const kind = (process.argv[2] ?? 'all') as 'unit' | 'int' | 'e2e' | 'all';
const jestArgs = process.argv.slice(3);
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const log = (line: string): void => console.log(`[hcn-test] ${line}`);

async function tryStart<T>(name: string, start: () => Promise<T>, skipVar: string): Promise<T | undefined> {
  // HCN_SKIP_KAFKA=1 and the like, set by hand, leave a service out of a local run (never with CI=true)
  if (process.env[skipVar] && !inCi) {
    log(`${name}: not started (${skipVar} is set); suites that need it will be SKIPPED`);
    return undefined;
  }
  try {
    return await start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (inCi) {
      console.error(`\n[hcn-test] FATAL: ${name} could not start and CI=true: ${reason}\n`);
      process.exit(1);
    }
    console.warn(`\n[hcn-test] !!! ${name} could not start: ${reason}`);
    console.warn(`[hcn-test] !!! suites that need ${name} will be SKIPPED (they never are with CI=true)\n`);
    process.env[skipVar] = reason;
    return undefined;
  }
}

/** Static checks before the suites: the type checker and the linter (with the purity rule) must pass. */
function staticChecks(): void {
  const root = resolve(__dirname, '..', '..');
  for (const [name, args] of [
    ['typecheck', [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']],
    ['typecheck web', [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'apps/web/tsconfig.json']],
    ['lint', [resolve(root, 'node_modules/eslint/bin/eslint.js'), '.']],
    [
      'format',
      [
        resolve(root, 'node_modules/prettier/bin/prettier.cjs'),
        '--check',
        '--log-level',
        'warn',
        '{apps,libs,bench,scripts,test,deploy}/**/*.{ts,js}',
      ],
    ],
  ] as const) {
    log(`${name} ...`);
    const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
      console.error(`[hcn-test] FATAL: ${name} failed`);
      process.exit(1);
    }
  }
}

/** The C code under native/: each library's `make test` (its own fakes, plus sanitizer builds) must pass. */
function nativeTests(): void {
  const root = resolve(__dirname, '..', '..');
  for (const dir of ['native/vram-guard']) {
    if (!existsSync(resolve(root, dir, 'Makefile'))) continue;
    log(`native: make -C ${dir} test ...`);
    const result = spawnSync('make', ['-s', '-C', resolve(root, dir), 'test'], { stdio: 'inherit' });
    if (result.status !== 0) {
      console.error(`[hcn-test] FATAL: make test in ${dir} failed (needs make and gcc)`);
      process.exit(1);
    }
  }
}

async function main(): Promise<void> {
  if (kind === 'all' && process.env.HCN_SKIP_STATIC_CHECKS !== '1') staticChecks();
  if (kind === 'all' || kind === 'unit') nativeTests();
  const needsServices = kind !== 'unit';
  let postgres: RunningPostgres | undefined;
  let kafka: RunningKafka | undefined;
  let engine: RunningEngine | undefined;
  let redis: RunningRedis | undefined;
  let sklearnPython: string | undefined;
  if (needsServices) {
    [postgres, kafka, engine, redis, sklearnPython] = await Promise.all([
      tryStart('PostgreSQL', () => startPostgresForTests(log), 'HCN_SKIP_POSTGRES'),
      tryStart('Kafka', () => startKafkaForTests(log), 'HCN_SKIP_KAFKA'),
      tryStart(
        'the container engine (podman)',
        () => startContainerEngineForTests(log),
        'HCN_SKIP_CONTAINERS',
      ),
      tryStart('Redis', () => startRedisForTests(log), 'HCN_SKIP_REDIS'),
      // the built-in model server's runtime (a venv with scikit-learn from PyPI, cached between runs)
      tryStart('the scikit-learn runtime', () => ensureSklearnRuntime(log), 'HCN_SKIP_SKLEARN'),
    ]);
  }
  // The browser specs (test/e2e/dashboard.e2e.spec.ts) drive headless Chromium; install it when missing.
  if (kind === 'e2e' || kind === 'all') {
    try {
      process.env.HCN_CHROMIUM = ensureChromium(log);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (inCi) {
        console.error(`\n[hcn-test] FATAL: Chromium could not be installed and CI=true: ${reason}\n`);
        process.exit(1);
      }
      console.warn(`\n[hcn-test] !!! Chromium unavailable: ${reason}; the browser specs will be SKIPPED\n`);
      process.env.HCN_SKIP_BROWSER = reason;
    }
  }
  const env = {
    ...process.env,
    HCN_TEST_KIND: kind,
    ...(postgres ? { HCN_TEST_DATABASE_URL: postgres.url } : {}),
    ...(kafka ? { HCN_TEST_KAFKA_BROKERS: kafka.brokers.join(',') } : {}),
    ...(kafka?.proxy ? { HCN_TEST_KAFKA_PROXY: `${kafka.proxy.listen}:${kafka.proxy.target}` } : {}),
    ...(kafka?.sasl
      ? {
          HCN_TEST_KAFKA_SASL_BROKERS: kafka.sasl.brokers.join(','),
          HCN_TEST_KAFKA_SASL_MECHANISM: kafka.sasl.mechanism,
          HCN_TEST_KAFKA_SASL_USERNAME: kafka.sasl.username,
          HCN_TEST_KAFKA_SASL_PASSWORD: kafka.sasl.password,
        }
      : {}),
    ...(engine ? { HCN_TEST_DOCKER_SOCKET: engine.socketPath, HCN_TEST_IMAGE: TEST_IMAGE } : {}),
    ...(redis ? { HCN_TEST_REDIS_URL: redis.url } : {}),
    ...(sklearnPython ? { HCN_TEST_SKLEARN_PYTHON: sklearnPython } : {}),
  };
  const jestBin = resolve(__dirname, '..', '..', 'node_modules', 'jest', 'bin', 'jest.js');
  const runJest = (args: string[]): Promise<number> => {
    const jest = spawn(process.execPath, [jestBin, ...args, ...jestArgs], { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals): void => void jest.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    return new Promise<number>((done) =>
      jest.on('close', (c) => {
        process.off('SIGINT', forward);
        process.off('SIGTERM', forward);
        done(c ?? 1);
      }),
    );
  };
  // The cross-process suites under test/e2e start hubs, projectors and agents as processes; on two cores they
  // run one at a time, after the rest, so that no two of them load the machine at once.
  const heavy = ['all', 'e2e'].includes(kind) && jestArgs.length === 0;
  let code = heavy
    ? await runJest(['--testPathIgnorePatterns', '/node_modules/', '/dist/', '/test/e2e/'])
    : await runJest([]);
  if (heavy) {
    log('cross-process e2e suites, one at a time ...');
    code = Math.max(code, await runJest(['--runInBand', 'test/e2e/']));
  }
  await Promise.all(
    [postgres?.stop(), kafka?.stop(), engine?.stop(), redis?.stop()].map((p) =>
      p?.catch((e) => log(`stop failed: ${e}`)),
    ),
  );
  process.exit(code);
}

main().catch((error) => {
  console.error('[hcn-test] FATAL:', error);
  process.exit(1);
});
