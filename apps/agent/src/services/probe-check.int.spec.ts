import { probeSchema } from '@hcn/contracts';
import { mkdtempSync, rmSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../executors/process-os';
import { checkOnce } from './probe-check';
import { pickHostPorts } from './service-ports';

/** Probes against real servers on the loopback, and real commands. */
describe('probe checks (real HTTP and TCP servers on loopback, real commands)', () => {
  let server: Server;
  let port: number;
  let dir: string;
  const exec = (command: readonly string[], timeoutMs: number) =>
    runCommand(command, { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, timeoutMs);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-probe-'));
    server = createServer((req, res) => {
      if (req.url === '/slow') return; // never answers
      const status = { '/ok': 200, '/moved': 302, '/bad': 503 }[req.url ?? ''] ?? 404;
      res.writeHead(status).end(String(status));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const http = (path: string, timeoutSeconds = 1) =>
    probeSchema.parse({ http: { path, port: 'http' }, timeoutSeconds });

  it('HTTP: 2xx and 3xx pass, other statuses fail with the status, no answer in time fails', async () => {
    expect(await checkOnce(http('/ok'), { hostPort: port, exec })).toEqual({ ok: true, detail: 'HTTP 200' });
    expect(await checkOnce(http('/moved'), { hostPort: port, exec })).toEqual({
      ok: true,
      detail: 'HTTP 302',
    });
    expect(await checkOnce(http('/bad'), { hostPort: port, exec })).toEqual({
      ok: false,
      detail: 'HTTP 503',
    });
    const started = Date.now();
    const slow = await checkOnce(http('/slow', 0.3), { hostPort: port, exec });
    expect(slow.ok).toBe(false);
    expect(slow.detail).toMatch(/timed out after 0.3 s|no answer in 300 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('TCP: an open port passes, a closed one fails as refused, an unpublished one fails', async () => {
    const tcp = probeSchema.parse({ tcp: { port: 'http' } });
    expect(await checkOnce(tcp, { hostPort: port, exec })).toEqual({ ok: true, detail: 'connected' });
    const [closed] = await pickHostPorts([{ name: 'x', hostPort: 0, protocol: 'tcp' }], new Set());
    expect(await checkOnce(tcp, { hostPort: closed.hostPort, exec })).toEqual({
      ok: false,
      detail: 'connection refused',
    });
    expect(await checkOnce(tcp, { exec })).toEqual({ ok: false, detail: 'the port is not published' });
    const refused = await checkOnce(http('/ok'), { hostPort: closed.hostPort, exec });
    expect(refused).toEqual({ ok: false, detail: 'connection refused' });
  });

  it('exec: exit 0 passes, another code fails with it, a command that hangs is killed at the timeout', async () => {
    const probe = (command: string[], timeoutSeconds = 2) =>
      probeSchema.parse({ exec: { command }, timeoutSeconds });
    expect(await checkOnce(probe(['sh', '-c', 'test -d .']), { exec })).toEqual({
      ok: true,
      detail: 'exit 0',
    });
    expect(await checkOnce(probe(['sh', '-c', 'exit 3']), { exec })).toEqual({ ok: false, detail: 'exit 3' });
    const started = Date.now();
    const hung = await checkOnce(probe(['sleep', '30'], 0.3), { exec });
    expect(hung.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await checkOnce(probe(['no-such-program-here']), { exec })).toMatchObject({ ok: false });
  });
});
