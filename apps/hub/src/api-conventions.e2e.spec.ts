import { domainStream, quotaStream, templateStream, workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { HubHarness, processSpec, registerNode, startHubHarness } from './testing/hub-harness';

/** The API's conventions over a real hub: problem+json, cursor pages, Location, ETag / If-Match, Retry-After. */
describeWithPostgres('API conventions (hub + projector, real PostgreSQL)', () => {
  let h: HubHarness;
  const streamLength = async (streamId: string) => (await h.store.readStream(streamId)).length;

  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
  });
  afterAll(async () => h?.close());

  /** Asserts an RFC 9457 problem answer with this status and dotted code. */
  const expectProblem = (
    answer: { status: number; body: any; headers: Headers },
    status: number,
    code: string,
    path: string,
  ) => {
    expect([answer.status, answer.headers.get('content-type')]).toEqual([
      status,
      expect.stringMatching(/^application\/problem\+json/),
    ]);
    expect(answer.body).toMatchObject({
      type: `urn:hcn:problem:${code.toLowerCase()}`,
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: path,
      code,
    });
  };

  it('answers errors as application/problem+json: 400, 404, 409', async () => {
    const bad = await h.request('POST', '/v1/workloads', { name: 'x' });
    expectProblem(bad, 400, 'WORKLOAD.SPEC', '/v1/workloads');
    expect(bad.body.details.issues.length).toBeGreaterThan(0);
    const path = `/v1/workloads/${randomUUID()}`;
    expectProblem(await h.request('GET', `${path}?x=1`), 404, 'WORKLOAD.NOT_FOUND', path);
    expect((await h.request('POST', '/v1/domains', { domainId: 'conv-dup' })).status).toBe(201);
    const again = await h.request('POST', '/v1/domains', { domainId: 'conv-dup', region: 'elsewhere' });
    expectProblem(again, 409, 'DOMAIN.ALREADY_EXISTS', '/v1/domains');
    expect(again.body.title).toBe('Domain already exists');
  });

  it('walks every item of a list by cursor without duplicates or gaps, and refuses a bad cursor', async () => {
    const domains = Array.from({ length: 7 }, (_, i) => `conv-page-${i}`);
    const templates = Array.from({ length: 5 }, (_, i) => `conv-tpl-${i}`);
    for (const domainId of domains)
      expect((await h.request('POST', '/v1/domains', { domainId })).status).toBe(201);
    for (const templateId of templates)
      expect((await h.request('POST', '/v1/templates', { templateId, spec: processSpec() })).status).toBe(
        201,
      );
    const walk = async (path: string, key: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 20; pages++) {
        const page: any = await h.request('GET', `${path}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect([path, page.status, page.body.items.length <= 2]).toEqual([path, 200, true]);
        seen.push(...page.body.items.map((item: any) => item[key]));
        expect(page.body.total).toEqual(expect.any(Number));
        cursor = page.body.nextCursor;
        if (!cursor) return seen;
      }
      throw new Error(`${path}: no last page`);
    };
    await eventuallyExpect(async () =>
      expect((await h.request('GET', '/v1/domains?defined=true')).body.total).toBe(domains.length + 1),
    );
    expect(await walk('/v1/domains?parentId=conv-none&sort=domainId', 'domainId')).toEqual([]);
    const byId = await walk('/v1/domains?defined=true&sort=domainId&order=desc', 'domainId');
    expect(byId).toEqual([...domains, 'conv-dup'].sort().reverse());
    const listed = await walkTemplates(h);
    expect(listed).toEqual(templates);
    for (const path of ['/v1/domains', '/v1/templates', '/v1/workloads', '/v1/nodes', '/v1/taskqueues']) {
      expectProblem(await h.request('GET', `${path}?cursor=not-a-cursor`), 400, 'REQUEST.BAD_CURSOR', path);
      expect([path, (await h.request('GET', `${path}?limit=0`)).status]).toEqual([path, 400]);
      expect([path, (await h.request('GET', `${path}?limit=1001`)).status]).toEqual([path, 400]);
    }
    const byName = await h.request('GET', '/v1/domains?limit=1&sort=nodesOnline');
    const other = await h.request('GET', `/v1/domains?limit=1&cursor=${byName.body.nextCursor}`);
    expectProblem(other, 400, 'REQUEST.BAD_CURSOR', '/v1/domains'); // a cursor of another sort
  });

  it('names the created resource in Location on every 201, and the URL resolves to it', async () => {
    const domain = await h.request('POST', '/v1/domains', { domainId: 'conv-loc' });
    const template = await h.request('POST', '/v1/templates', {
      templateId: 'conv-loc',
      spec: processSpec(),
    });
    const queue = await h.request('POST', '/v1/taskqueues', { name: 'conv-loc', namespace: 'default' });
    await registerNode(h, { domainId: 'conv-loc', hostname: 'conv-loc' });
    const workload = await h.request('POST', '/v1/workloads', processSpec({ name: 'conv-loc' }));
    for (const [created, key] of [
      [domain, 'domainId'],
      [template, 'templateId'],
      [queue, 'queueId'],
      [workload, 'workloadId'],
    ] as const) {
      expect(created.status).toBe(201);
      const location = created.headers.get('location')!;
      await eventuallyExpect(async () => {
        const resolved = await h.request('GET', location); // a task queue is read from its read model
        expect([location, resolved.status, resolved.body[key]]).toEqual([location, 200, created.body[key]]);
      });
    }
  });

  it('sends the stream revision as ETag and honours If-Match on PUT and DELETE: 412 writes nothing', async () => {
    expect((await h.request('POST', '/v1/domains', { domainId: 'conv-etag' })).status).toBe(201);
    const read = await h.request('GET', '/v1/domains/conv-etag');
    expect(read.headers.get('etag')).toBe('"0"');
    // the ETag serves If-Match, not caching: never stored, a conditional GET still gets the body (bodies show
    // live figures the revision does not version, e.g. a task's progress)
    expect(read.headers.get('cache-control')).toBe('no-store');
    const conditional = await h.request('GET', '/v1/domains/conv-etag', undefined, {
      'if-none-match': '"0"',
    });
    expect([conditional.status, conditional.body.domainId]).toEqual([200, 'conv-etag']);
    const stale = await h.request('PUT', '/v1/domains/conv-etag', { region: 'r1' }, { 'if-match': '"7"' });
    expectProblem(stale, 412, 'REQUEST.PRECONDITION_FAILED', '/v1/domains/conv-etag');
    expect(stale.body.details).toEqual({ ifMatch: [7], revision: 0 });
    const weak = await h.request('PUT', '/v1/domains/conv-etag', { region: 'r1' }, { 'if-match': 'W/"0"' });
    expect(weak.status).toBe(412); // If-Match compares strongly
    expect(await streamLength(domainStream('conv-etag'))).toBe(1);
    const fresh = await h.request('PUT', '/v1/domains/conv-etag', { region: 'r1' }, { 'if-match': '"0"' });
    expect(fresh.status).toBe(200);
    expect((await h.request('GET', '/v1/domains/conv-etag')).headers.get('etag')).toBe('"1"');
    const lost = await h.request('PUT', '/v1/domains/conv-etag', { region: 'r2' }, { 'if-match': '"0"' });
    expect([lost.status, await streamLength(domainStream('conv-etag'))]).toEqual([412, 2]);

    const quota = await h.request('GET', '/v1/quotas/conv-ns');
    expect(quota.headers.get('etag')).toBe('"-1"'); // no quota events yet
    const limits = { limits: { cpuMillis: 1000 } };
    expect((await h.request('PUT', '/v1/quotas/conv-ns', limits, { 'if-match': '"3"' })).status).toBe(412);
    expect(await streamLength(quotaStream('conv-ns'))).toBe(0);
    expect((await h.request('PUT', '/v1/quotas/conv-ns', limits, { 'if-match': '"-1"' })).status).toBe(200);
    expect((await h.request('GET', '/v1/quotas/conv-ns')).headers.get('etag')).toBe('"0"');

    expect(
      (await h.request('POST', '/v1/templates', { templateId: 'conv-etag', spec: processSpec() })).status,
    ).toBe(201);
    const tag = (await h.request('GET', '/v1/templates/conv-etag')).headers.get('etag')!;
    const body = { spec: processSpec({ name: 'other' }) };
    expect((await h.request('PUT', '/v1/templates/conv-etag', body, { 'if-match': '"9"' })).status).toBe(412);
    expect(
      (await h.request('DELETE', '/v1/templates/conv-etag', undefined, { 'if-match': '"9"' })).status,
    ).toBe(412);
    expect(await streamLength(templateStream('conv-etag'))).toBe(1);
    expect((await h.request('PUT', '/v1/templates/conv-etag', body, { 'if-match': tag })).status).toBe(200);
    const next = (await h.request('GET', '/v1/templates/conv-etag')).headers.get('etag')!;
    expect(
      (await h.request('DELETE', '/v1/templates/conv-etag', undefined, { 'if-match': next })).status,
    ).toBe(200);

    const submitted = await h.request('POST', '/v1/workloads', processSpec({ name: 'conv-etag' }));
    const path = `/v1/workloads/${submitted.body.workloadId}`;
    const stream = workloadStream(submitted.body.workloadId);
    const before = await streamLength(stream);
    expect((await h.request('GET', path)).headers.get('etag')).toMatch(/^"\d+"$/);
    const update = processSpec({ name: 'conv-etag', args: ['-c', 'echo changed'] });
    expect((await h.request('PUT', path, update, { 'if-match': '"999"' })).status).toBe(412);
    expect((await h.request('DELETE', path, undefined, { 'if-match': '"999"' })).status).toBe(412);
    expect(await streamLength(stream)).toBe(before);
    // the saga may append between the GET and the DELETE (a placement): then the tag is stale and read again
    let deleted = 0;
    for (let attempt = 0; attempt < 5 && deleted !== 202; attempt++) {
      const etag = (await h.request('GET', path)).headers.get('etag')!;
      deleted = (await h.request('DELETE', path, undefined, { 'if-match': etag })).status;
    }
    expect(deleted).toBe(202);
  });

  it('sends ETag on the other single-resource GETs (node, task queue)', async () => {
    const node = await registerNode(h, { domainId: 'conv-node', hostname: 'conv-node' });
    await eventuallyExpect(async () => {
      const answer = await h.request('GET', `/v1/nodes/${node.nodeId}`); // once projected
      expect([answer.status, answer.headers.get('etag')]).toEqual([200, expect.stringMatching(/^"\d+"$/)]);
    });
    const missing = await h.request('GET', `/v1/nodes/${randomUUID()}`);
    expect([missing.status, missing.headers.get('etag')]).toEqual([404, null]); // no ETag on errors
    const queue = await h.request('POST', '/v1/taskqueues', { name: 'conv-etag', namespace: 'default' });
    const location = queue.headers.get('location')!;
    let etag: string | null = null;
    for (let i = 0; i < 50 && !etag; i++) {
      const answer = await h.request('GET', location);
      etag = answer.status === 200 ? answer.headers.get('etag') : null;
      if (!etag) await new Promise((r) => setTimeout(r, 100));
    }
    expect(etag).toBe('"0"');
  });

  it('says Retry-After on a 503 (readiness with the event store gone)', async () => {
    await h.store.close();
    h.store.close = async () => undefined; // closed here already: the harness's close goes on with the rest
    const ready = await h.request('GET', '/readyz');
    expect([ready.status, ready.headers.get('retry-after')]).toEqual([503, '5']);
  });
});

/** Every template id, walked two at a time. */
async function walkTemplates(h: HubHarness): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await h.request('GET', `/v1/templates?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.body.items.length).toBeLessThanOrEqual(2);
    seen.push(...page.body.items.map((t: any) => t.templateId));
    cursor = page.body.nextCursor;
  } while (cursor);
  return seen;
}
