import { randomUUID } from 'node:crypto';
import { describeWithPostgres } from '@hcn/testing';
import { HubHarness, startHubHarness } from '../testing/hub-harness';

/** The value of one sample line of a Prometheus text exposition, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    const pairs = new Map([...body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => pairs.get(k) === v)) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describeWithPostgres('HTTP request metrics at /metrics (real hub, real PostgreSQL)', () => {
  let h: HubHarness;
  beforeAll(async () => (h = await startHubHarness()));
  afterAll(async () => h?.close());

  it('counts requests by route template (never the raw path), status class and errors, with durations', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) expect((await h.request('GET', `/v1/workloads/${id}`)).status).toBe(404);
    expect((await h.request('GET', '/v1/nodes')).status).toBe(200);
    expect((await h.request('GET', '/v1/nodes', undefined, { authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
    expect((await h.request('GET', `/no/such/path/${randomUUID()}`)).status).toBe(404);

    const text = (await h.request('GET', '/metrics')).body as string;
    const byId = { method: 'GET', route: '/v1/workloads/:id' };
    expect(sample(text, 'hcn_http_requests_total', { ...byId, status_class: '4xx' })).toBe(3);
    expect(sample(text, 'hcn_http_request_errors_total', { ...byId, kind: 'client' })).toBe(3);
    expect(sample(text, 'hcn_http_request_duration_seconds_count', byId)).toBe(3);
    expect(sample(text, 'hcn_http_request_duration_seconds_bucket', { ...byId, le: '+Inf' })).toBe(3);
    const nodes = { method: 'GET', route: '/v1/nodes' };
    expect(sample(text, 'hcn_http_requests_total', { ...nodes, status_class: '2xx' })).toBe(1);
    expect(sample(text, 'hcn_http_requests_total', { ...nodes, status_class: '4xx' })).toBe(1); // the guard's 401
    const unmatched = { method: 'GET', route: 'unmatched', status_class: '4xx' };
    expect(sample(text, 'hcn_http_requests_total', unmatched)).toBeGreaterThanOrEqual(1);
    // no raw id ever becomes a label value
    for (const id of ids) expect(text).not.toContain(id);
    expect(text).toMatch(
      /^hcn_build_info\{app="hub",version="[^"]+",commit="[^"]*",node="v\d+\.\d+\.\d+"\} 1$/m,
    );
  });
});
