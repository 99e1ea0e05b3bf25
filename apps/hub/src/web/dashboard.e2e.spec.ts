import { describeWithPostgres } from '@hcn/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, startHubHarness } from '../testing/hub-harness';

describeWithPostgres('dashboard files beside the API (real PostgreSQL)', () => {
  let h: HubHarness;
  const dir = mkdtempSync(join(tmpdir(), 'hcn-web-'));
  const before = process.env.HCN_WEB_DIR;

  beforeAll(async () => {
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>spec dashboard</title>');
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
    // Files named like API paths must never answer in their place.
    writeFileSync(join(dir, 'healthz'), 'a file, not the health check');
    mkdirSync(join(dir, 'v1'));
    writeFileSync(join(dir, 'v1', 'nodes'), 'a file, not the node listing');
    process.env.HCN_WEB_DIR = dir;
    h = await startHubHarness();
  });
  afterAll(async () => {
    await h?.close();
    if (before === undefined) delete process.env.HCN_WEB_DIR;
    else process.env.HCN_WEB_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / (not cached) and hashed bundles cached for good', async () => {
    const page = await fetch(`${h.hub.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('spec dashboard');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const bundle = await fetch(`${h.hub.url}/assets/app-1234.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('leaves API paths to the API even where a file of that name exists', async () => {
    const health = await h.request('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).not.toContain('a file');
    const nodes = await h.request('GET', '/v1/nodes');
    expect(nodes.status).toBe(200);
    expect(Array.isArray(nodes.body.items ?? nodes.body)).toBe(true);
    const unknown = await h.request('GET', '/v1/no-such-route');
    expect(unknown.status).toBe(404);
  });
});
