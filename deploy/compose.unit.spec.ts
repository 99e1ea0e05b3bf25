import { spawnSync } from 'node:child_process';
import { loadAgentConfig } from '../apps/agent/src/config';
import { loadHubConfig } from '../apps/hub/src/config';
import { loadProjectorConfig } from '../apps/projector/src/config';
import { loadTracingSettings } from '@hcn/platform';
import { HUB_NODE_FLAGS } from '../bench/support';
import {
  agentServices,
  ComposeFile,
  dependencies,
  exampleEnv,
  interpolate,
  loadCompose,
  makeEnv,
  rawCompose,
  readRootFile,
} from './compose-file';
import { parseDockerfile, runCommands } from './dockerfile';

/**
 * docker-compose.yml cannot run here (no container engine, no image pulls); this spec checks what can be
 * checked: with `.env.example` filled as `node scripts/make-env.js` fills it, every app service's environment
 * passes that app's configuration schema; and the rules that make the stack start and keep its data (volumes on
 * the paths the images write, healthchecks and start order, loopback ports, secrets only from .env, profiles).
 */
describe('docker-compose.yml', () => {
  const env = exampleEnv();
  const compose = loadCompose(env);
  const services = compose.services;
  const raw = rawCompose();
  const agents = agentServices(compose);
  const withProfile = (): ComposeFile =>
    loadCompose({
      ...env,
      EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
      COMPOSE_PROFILES: 'eventstoredb',
    });

  it('has the backing services, the apps, and EventStoreDB and Redis only under their profiles', () => {
    expect(services.postgres.image).toBe('postgres:17');
    expect(services.kafka.image).toBe('apache/kafka:3.9.1');
    expect(services.eventstore.image).toBe('eventstore/eventstore:24.10');
    expect(agents).toHaveLength(3);
    const profiled = Object.entries(services).filter(([, s]) => s.profiles);
    expect(Object.fromEntries(profiled.map(([name, s]) => [name, s.profiles]))).toEqual({
      eventstore: ['eventstoredb'],
      redis: ['taskqueues'],
    });
  });

  it('gives the hub and the projector the PostgreSQL event store by default, EventStoreDB with the profile', () => {
    const hub = loadHubConfig(services.hub.environment!);
    const projector = loadProjectorConfig(services.projector.environment!);
    expect(hub.eventStoreUrl).toBeUndefined();
    expect(projector.eventStoreUrl).toBeUndefined();
    expect(hub.databaseUrl).toBe(`postgres://hcn:${env.POSTGRES_PASSWORD}@postgres:5432/hcn`);
    expect(projector.databaseUrl).toBe(hub.databaseUrl);
    expect(hub.kafkaBrokers).toEqual(['kafka:9092']);
    expect(hub.apiTokens[0]).toMatchObject({ role: 'admin', token: env.HCN_ADMIN_TOKEN });
    expect([hub.logLevel, projector.logLevel]).toEqual(['info', 'info']); // LOG_LEVEL from .env, JSON lines
    for (const name of ['hub', 'projector', 'agent-east-1'])
      expect(loadTracingSettings('hub', services[name].environment!).enabled).toBe(false); // off by default

    const esdb = withProfile().services;
    const url = new URL(loadHubConfig(esdb.hub.environment!).eventStoreUrl!);
    expect(loadProjectorConfig(esdb.projector.environment!).eventStoreUrl).toBe(url.href);
    expect(`${url.hostname}:${url.port}`).toBe(
      `eventstore:${esdb.eventstore.environment!.EVENTSTORE_HTTP_PORT}`,
    );
  });

  it("gives each agent a valid configuration in two domains, with the hub's join token", () => {
    const configs = agents.map(([, s]) => loadAgentConfig(s.environment!));
    expect(new Set(configs.map((c) => c.domainId))).toEqual(new Set(['east', 'west']));
    expect(configs.every((c) => c.joinToken === loadHubConfig(services.hub.environment!).joinToken)).toBe(
      true,
    );
    expect(configs.every((c) => c.hubUrl === 'http://hub:8080')).toBe(true);
    expect(configs.every((c) => c.kafkaBrokers?.join() === 'kafka:9092')).toBe(true);
  });

  it('runs each app from the one image, agents behind an init (they spawn process groups)', () => {
    expect(services.hub.command!.at(-1)).toBe('dist/apps/hub/src/main.js');
    expect(services.projector.command).toEqual(['dist/apps/projector/src/main.js']);
    for (const [, agent] of agents) {
      expect(agent.command).toEqual(['dist/apps/agent/src/main.js']);
      expect(agent.init).toBe(true);
    }
    for (const name of ['hub', 'projector', ...agents.map(([n]) => n)])
      expect(services[name].image).toBe('hcn:local');
  });

  it('runs the hub with the V8 flags the placement benchmark measured, on its command line', () => {
    expect(services.hub.command!.slice(0, -1)).toEqual([...HUB_NODE_FLAGS]);
  });

  it('sets only NODE_OPTIONS that node accepts there', () => {
    const options = Object.values(services)
      .map((s) => s.environment?.NODE_OPTIONS)
      .filter((o): o is string => o !== undefined);
    expect(options.length).toBeGreaterThan(0);
    for (const value of options) {
      const run = spawnSync(process.execPath, ['-e', '0'], {
        env: { PATH: process.env.PATH, NODE_OPTIONS: value },
      });
      expect({ value, status: run.status, stderr: run.stderr.toString() }).toEqual({
        value,
        status: 0,
        stderr: '',
      });
    }
    // the hub's flags are the ones NODE_OPTIONS refuses: that is why they are on its command line
    const hubFlags = spawnSync(process.execPath, ['-e', '0'], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: HUB_NODE_FLAGS.join(' ') },
    });
    expect(hubFlags.status).not.toBe(0);
  });

  it("mounts each agent's named volume on its data directory, which the image creates owned by its user", () => {
    const dockerfile = parseDockerfile(readRootFile('Dockerfile'));
    const runtime = dockerfile[dockerfile.length - 1];
    const user = runtime.instructions.filter((i) => i.keyword === 'USER').at(-1)!.args;
    for (const [name, agent] of agents) {
      const dataDir = agent.environment!.HCN_DATA_DIR;
      expect(agent.volumes).toEqual([`${name}:${dataDir}`]);
      expect(compose.volumes).toHaveProperty(name);
      expect(runCommands(runtime)).toContain(`install -d -o ${user} -g ${user} -m 700 ${dataDir}`);
    }
  });

  it("keeps Kafka's log on its volume (KAFKA_LOG_DIRS) under a fixed cluster id", () => {
    const kafka = services.kafka.environment!;
    expect(services.kafka.volumes).toEqual([`kafka-data:${kafka.KAFKA_LOG_DIRS}`]);
    expect(Buffer.from(kafka.CLUSTER_ID, 'base64url')).toHaveLength(16); // a Kafka Uuid, 22 base64url characters
    expect(kafka.CLUSTER_ID).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(services.postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(services.eventstore.volumes).toEqual(['eventstore-data:/var/lib/eventstore']);
  });

  it('health-checks every service others wait for, and they wait for healthy', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, dep] of Object.entries(dependencies(service))) {
        expect({ name, dependency, condition: dep.condition }).toEqual({
          name,
          dependency,
          condition: 'service_healthy',
        });
        expect(services[dependency].healthcheck?.test?.length).toBeGreaterThan(0);
        // a profiled dependency is absent without its profile: not required
        expect(dep.required === false).toBe(Boolean(services[dependency].profiles));
      }
    }
    expect(services.postgres.healthcheck!.test).toEqual(['CMD-SHELL', 'pg_isready -U hcn -d hcn']);
    expect(services.kafka.healthcheck!.test!.join(' ')).toContain('kafka-broker-api-versions.sh');
    expect(services.eventstore.healthcheck!.test!.join(' ')).toContain('/health/live');
    expect(services.hub.healthcheck!.test).toEqual(['CMD', 'node', 'scripts/healthcheck.js', 'hub']);
    for (const [, agent] of agents)
      expect(agent.healthcheck!.test).toEqual(['CMD', 'node', 'scripts/healthcheck.js', 'agent']);
    expect(Object.keys(dependencies(services.hub)).sort()).toEqual(['eventstore', 'kafka', 'postgres']);
    for (const [, agent] of agents) expect(Object.keys(dependencies(agent)).sort()).toEqual(['hub', 'kafka']);
  });

  it('publishes ports on 127.0.0.1 unless HCN_BIND_ADDRESS says otherwise', () => {
    const published = (file: ComposeFile): string[] =>
      Object.values(file.services).flatMap((s) => s.ports ?? []);
    expect(published(compose).sort()).toEqual(['127.0.0.1:2113:2113', '127.0.0.1:8080:8080']);
    // with no .env value at all, the defaults in the file say loopback too
    expect(
      published(loadCompose({ ...env, HCN_BIND_ADDRESS: undefined })).every((p) =>
        p.startsWith('127.0.0.1:'),
      ),
    ).toBe(true);
    expect(published(loadCompose({ ...env, HCN_BIND_ADDRESS: '0.0.0.0' }))).toContain('0.0.0.0:8080:8080');
  });

  it('takes every secret from .env, required, with no value written in the file', () => {
    const text = readRootFile('docker-compose.yml');
    for (const name of makeEnv.SECRET_NAMES) {
      const uses = [...text.matchAll(new RegExp(`\\$\\{${name}([^}]*)\\}`, 'g'))];
      expect(uses.length).toBeGreaterThan(0);
      for (const use of uses) expect(use[1]).toMatch(/^:\?/); // `${NAME:?message}`: no default to fall back to
      expect(() => loadCompose({ ...env, [name]: '' })).toThrow(name);
    }
    // every secret-looking variable of every service is a reference to .env, never a literal
    for (const [name, service] of Object.entries(raw.services))
      for (const [key, value] of Object.entries(service.environment ?? {}))
        if (/TOKEN|SECRET|PASSWORD|KEY/.test(key))
          expect({ name, key, value }).toEqual({
            name,
            key,
            value: expect.stringMatching(/^\$\{[A-Z_]+:\?[^}]+\}$/),
          });
    // no URL in any value with a literal password
    const strings = (node: unknown): string[] =>
      typeof node === 'string'
        ? [node]
        : node && typeof node === 'object'
          ? Object.values(node).flatMap(strings)
          : [];
    const urls = strings(raw.services).flatMap(
      (v) => v.match(/[a-z]+:\/\/(?:\$\{[^}]*\}|[^\s"'@$])*@/g) ?? [],
    );
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(/:\$\{[A-Z_]+:\?[^}]+\}@$/);
  });

  it('documents in .env.example every variable the file reads, and make-env fills each secret', () => {
    const text = readRootFile('docker-compose.yml');
    const read = new Set([...text.matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]));
    const example = readRootFile('.env.example');
    const documented = new Set([...example.matchAll(/^#?\s*([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    for (const name of read)
      expect({ name, documented: documented.has(name) }).toEqual({ name, documented: true });
    const filled = makeEnv.parseEnv(makeEnv.fillSecrets(example));
    for (const name of makeEnv.SECRET_NAMES) {
      expect(makeEnv.parseEnv(example)[name]).toBe(''); // no secret is committed
      expect(filled[name]).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(makeEnv.fillSecrets(example)).not.toBe(makeEnv.fillSecrets(example)); // fresh each time
  });

  it('interpolates as compose does', () => {
    const vars = { SET: 'x', EMPTY: '' };
    expect(interpolate('a$$b ${SET} $SET ${NONE}', vars)).toBe('a$b x x ');
    expect(interpolate('${EMPTY:-d} ${EMPTY-d} ${NONE-d} ${SET:-d}', vars)).toBe('d  d x');
    expect(() => interpolate('${EMPTY:?needed}', vars)).toThrow('EMPTY: needed');
    expect(interpolate('${EMPTY?needed}', vars)).toBe('');
    expect(() => interpolate('${NONE?needed}', vars)).toThrow('NONE: needed');
  });
});
