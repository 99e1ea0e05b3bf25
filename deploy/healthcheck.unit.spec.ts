import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outbox } from '../apps/agent/src/outbox/outbox';

interface Verdict {
  healthy: boolean;
  reason: string;
}

const health = require('../scripts/healthcheck') as {
  detectApp(cmdline: string): string | undefined;
  hubProbeUrl(env: Record<string, string>): string;
  checkHub(env: Record<string, string>, timeoutMs?: number): Promise<Verdict>;
  checkAgent(env: Record<string, string>, now?: number): Verdict;
};

const ROOT = join(__dirname, '..');

/** Runs scripts/healthcheck.js as the image's HEALTHCHECK runs it; resolves with its exit code and line. */
function runScript(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/healthcheck.js', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH!, ...env },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('scripts/healthcheck.js', () => {
  it("tells the app from PID 1's command line, with or without an init in front", () => {
    expect(health.detectApp('node -r ./scripts/register-dist.js dist/apps/agent/src/main.js')).toBe('agent');
    expect(
      health.detectApp(
        '/sbin/docker-init -- node -r ./scripts/register-dist.js --no-memory-reducer dist/apps/hub/src/main.js',
      ),
    ).toBe('hub');
    expect(health.detectApp('node -r ./scripts/register-ts.js apps/projector/src/main.ts rebuild')).toBe(
      'projector',
    );
    expect(health.detectApp('node dist/apps/cli/src/main.js audit verify')).toBeUndefined();
  });

  it("asks the hub's own listener, on loopback when it listens on every address", () => {
    expect(health.hubProbeUrl({ HCN_HTTP_HOST: '0.0.0.0', HCN_HTTP_PORT: '8080' })).toBe(
      'http://127.0.0.1:8080/readyz',
    );
    expect(health.hubProbeUrl({ HCN_HTTP_HOST: '::', HCN_HTTP_PORT: '9000' })).toBe(
      'http://127.0.0.1:9000/readyz',
    );
    expect(health.hubProbeUrl({ HCN_HTTP_HOST: '10.0.0.5' })).toBe('http://10.0.0.5:8080/readyz');
    expect(health.hubProbeUrl({})).toBe('http://127.0.0.1:8080/readyz');
  });

  describe('hub', () => {
    let server: Server;
    let status = 200;
    let port = 0;
    beforeAll(async () => {
      server = createServer((req, res) => {
        res.statusCode = req.url === '/readyz' ? status : 404;
        res.end(
          JSON.stringify({
            status: status === 200 ? 'ready' : 'not ready',
            checks: { eventStore: 'unavailable' },
          }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('is healthy while /readyz answers 200, not while it answers 503 or nothing listens', async () => {
      const env = { HCN_HTTP_HOST: '0.0.0.0', HCN_HTTP_PORT: String(port) };
      status = 200;
      expect(await health.checkHub(env)).toMatchObject({ healthy: true });
      expect(await runScript(['hub'], env)).toEqual({ code: 0, out: expect.stringContaining('hub ready') });
      status = 503;
      const notReady = await health.checkHub(env);
      expect(notReady).toMatchObject({ healthy: false, reason: expect.stringContaining('answered 503') });
      expect(notReady.reason).toContain('eventStore');
      expect((await runScript(['hub'], env)).code).toBe(1);
      const closed = await health.checkHub({ HCN_HTTP_PORT: '1' }, 1000);
      expect(closed).toMatchObject({ healthy: false, reason: expect.stringContaining('unreachable') });
    });
  });

  describe('agent', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hcn-health-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("is healthy while the broker acknowledged one of the agent's reports lately (the real outbox's cursor)", async () => {
      const env = { HCN_DATA_DIR: dir };
      expect(health.checkAgent(env)).toMatchObject({
        healthy: false,
        reason: expect.stringContaining('no report yet'),
      });
      const outbox = new Outbox<{ kind: string }>(join(dir, 'outbox'));
      const entry = outbox.add(() => ({ kind: 'heartbeat' }));
      outbox.acknowledge(entry.seq);
      expect(health.checkAgent(env)).toMatchObject({ healthy: true });
      expect(await runScript(['agent'], env)).toEqual({
        code: 0,
        out: expect.stringContaining('delivered a report'),
      });
      const old = (Date.now() - 600_000) / 1000;
      utimesSync(join(dir, 'outbox', 'outbox.sent'), old, old);
      expect(health.checkAgent(env)).toMatchObject({
        healthy: false,
        reason: expect.stringContaining('no report for'),
      });
      expect(health.checkAgent({ ...env, HCN_HEALTHCHECK_MAX_SILENCE_SECONDS: '900' })).toMatchObject({
        healthy: true,
      });
      expect((await runScript(['agent'], env)).code).toBe(1);
    });

    it('is unhealthy when its data directory cannot be written', () => {
      expect(health.checkAgent({ HCN_DATA_DIR: join(dir, 'missing') })).toMatchObject({
        healthy: false,
        reason: expect.stringContaining('not writable: ENOENT'),
      });
    });
  });

  it('refuses an unknown app', async () => {
    expect((await runScript(['cli'], {})).code).toBe(1);
  });
});
