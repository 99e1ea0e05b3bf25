import { quotaStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { freePort } from '@hcn/platform';
import { TestDatabase, createTestDatabase, describeWithPostgres, eventually } from '@hcn/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const ADMIN_TOKEN = 'logs-admin-token-0123456789';

/** An app run from its TypeScript entry with its standard output and error kept apart. */
class LoggedApp {
  stdout = '';
  stderr = '';
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(entry: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, ['-r', './scripts/register-ts.js', entry], {
      cwd: ROOT,
      // an empty value unsets the variable (the runner's own KAFKA_BROKERS, say)
      env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== '')),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((r) => this.child.once('exit', (code) => r(code)));
  }

  /** Every line of standard output, parsed (a line that is not JSON fails the spec with the line). */
  lines(): Array<Record<string, unknown>> {
    return this.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          throw new Error(`not a JSON line: ${line}`);
        }
      });
  }

  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

/** Asserts the shape every log line has: ISO time, a level name, the app, a message. */
function expectLogLines(lines: Array<Record<string, unknown>>, app: string): void {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect({ line, ok: typeof line.time === 'string' && !Number.isNaN(Date.parse(line.time)) }).toEqual({
      line,
      ok: true,
    });
    expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).toContain(line.level);
    expect(line.app).toBe(app);
    expect(typeof line.msg).toBe('string');
  }
}

describeWithPostgres(
  'structured logs (JSON lines, X-Request-Id, LOG_LEVEL) of the hub, projector and agent',
  () => {
    let db: TestDatabase;
    const apps: LoggedApp[] = [];

    function hub(port: number, logLevel: string): LoggedApp {
      const app = new LoggedApp('apps/hub/src/main.ts', {
        DATABASE_URL: db.url,
        KAFKA_BROKERS: '',
        HCN_HTTP_PORT: String(port),
        HCN_AGENT_SECRET: 'logs-agent-secret-0123456789-0123456789',
        HCN_ADMIN_TOKEN: ADMIN_TOKEN,
        LOG_LEVEL: logLevel,
      });
      apps.push(app);
      return app;
    }

    async function ready(url: string, app: LoggedApp): Promise<void> {
      const answers = async () => {
        if (app.child.exitCode !== null) throw new Error(`exited ${app.child.exitCode}`);
        return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
      };
      await eventually('hub ready', answers, 150_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${app.stdout.slice(-3000)}\n${app.stderr.slice(-3000)}`);
      });
    }

    const get = (url: string, requestId?: string) =>
      fetch(`${url}/v1/nodes`, {
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
      });

    beforeAll(async () => {
      db = await createTestDatabase('logs');
    });

    afterAll(async () => {
      await Promise.all(apps.map((a) => a.stop()));
      await db?.drop();
    });

    it('hub: JSON lines; each request logged with its id, echoed or replaced as X-Request-Id; commands correlated with it', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const app = hub(port, 'info');
      const projector = new LoggedApp('apps/projector/src/main.ts', {
        DATABASE_URL: db.url,
        LOG_LEVEL: 'info',
      });
      apps.push(projector);
      await ready(url, app);

      const echoed = await get(url, 'spec-req.1:A');
      expect(echoed.headers.get('x-request-id')).toBe('spec-req.1:A');
      const invalid = await get(url, 'not safe <script>');
      const replaced = invalid.headers.get('x-request-id')!;
      expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
      const tooLong = await get(url, 'x'.repeat(129));
      expect(tooLong.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const fresh = (await get(url)).headers.get('x-request-id')!;
      expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
      const refused = await fetch(`${url}/v1/nodes`, { headers: { 'x-request-id': 'spec-unauthorized' } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('x-request-id')).toBe('spec-unauthorized');

      const quota = await fetch(`${url}/v1/quotas/logs-ns`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'x-request-id': 'spec-quota-1',
        },
        body: JSON.stringify({ limits: { workloads: 3 } }),
      });
      expect(quota.status).toBeLessThan(300);
      const store = await PostgresEventStore.connect({ connectionString: db.url });
      try {
        const [event] = await store.readStream(quotaStream('logs-ns'));
        expect(event.metadata).toMatchObject({ correlationId: 'spec-quota-1', causationId: 'spec-quota-1' });
        expect(event.metadata.traceparent).toBeUndefined(); // tracing is off
      } finally {
        await store.close();
      }

      await eventually(
        'the request lines',
        async () => app.lines().filter((l) => l.requestId !== undefined).length >= 6,
        10_000,
      );
      expect(await app.stop()).toBe(0);
      const lines = app.lines();
      expectLogLines(lines, 'hub');
      const byRequest = (id: string) => lines.filter((l) => l.requestId === id);
      for (const id of ['spec-req.1:A', replaced, fresh, 'spec-unauthorized', 'spec-quota-1']) {
        expect({ id, lines: byRequest(id).length }).toEqual({ id, lines: 1 });
      }
      expect(byRequest('spec-req.1:A')[0]).toMatchObject({
        level: 'info',
        msg: 'GET /v1/nodes 200',
        req: { method: 'GET', path: '/v1/nodes' },
        res: { statusCode: 200 },
      });
      expect(lines.some((l) => l.requestId === 'not safe <script>')).toBe(false);
      expect(JSON.stringify(lines)).not.toContain(ADMIN_TOKEN); // no headers logged
      expect(lines.map((l) => l.msg)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^listening on /)]),
      );
      expect(lines[lines.length - 1].msg).toBe('stopping ...');

      await eventually('the projector running', async () => projector.stdout.includes('"running"'), 30_000);
      expect(await projector.stop()).toBe(0);
      expectLogLines(projector.lines(), 'projector');
    }, 240_000);

    it('hub: LOG_LEVEL=warn logs no info lines', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const app = hub(port, 'warn');
      await ready(url, app);
      expect((await get(url, 'spec-quiet')).status).toBe(200);
      expect(await app.stop()).toBe(0);
      expect(app.stdout).not.toContain('spec-quiet');
      const lines = app.stdout.trim() === '' ? [] : app.lines();
      expect(lines.filter((l) => l.level === 'info' || l.level === 'debug')).toEqual([]);
    }, 240_000);

    it('hub and agent: a bad LOG_LEVEL, or a missing setting, fails start-up with exit 2 and a clear JSON message', async () => {
      const bad = hub(await freePort(), 'verbose');
      expect(await bad.exited).toBe(2);
      const [line] = bad.lines();
      expect(line).toMatchObject({ level: 'fatal', app: 'hub' });
      expect(line.msg).toContain('Invalid hub configuration');
      expect(line.msg).toContain('LOG_LEVEL: one of trace, debug, info, warn, error, fatal, silent');

      const agent = new LoggedApp('apps/agent/src/main.ts', {
        HCN_HUB_URL: 'http://127.0.0.1:9',
        HCN_JOIN_TOKEN: 'logs-join-token-0123456789',
        KAFKA_BROKERS: '',
        LOG_LEVEL: 'loud',
      });
      apps.push(agent);
      expect(await agent.exited).toBe(2);
      const agentLines = agent.lines();
      expectLogLines(agentLines, 'agent');
      expect(agentLines[0].msg).toContain('LOG_LEVEL: one of trace');
    }, 120_000);
  },
);
