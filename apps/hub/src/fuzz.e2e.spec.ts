import { describeWithPostgres } from '@hcn/testing';
import fc from 'fast-check';
import { HubHarness, registerNode, startHubHarness } from './testing/hub-harness';

interface Operation {
  readonly method: string;
  readonly path: string;
}

/** Every operation of the served OpenAPI document. */
async function operations(h: HubHarness): Promise<Operation[]> {
  const doc = (await h.request('GET', '/docs/openapi.json')).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
}

const pathValue = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('..', '%00', 'a'.repeat(300), '-1', '1e309', 'default', '\u0000'),
);
const json = fc.jsonValue({ maxDepth: 4 });
const body = fc.oneof(
  json,
  fc.dictionary(
    fc.constantFrom(
      'name',
      'type',
      'image',
      'command',
      'args',
      'env',
      'resources',
      'replicas',
      'labels',
      'limits',
      'spec',
      'workloads',
      'parameters',
      'domainId',
      'joinToken',
      'nodeId',
      'ttlSeconds',
      'reason',
      'templateId',
      'namespace',
    ),
    json,
  ),
  fc.string({ maxLength: 50 }).map((s) => `{"broken": ${s}`),
);
const query = fc.dictionary(
  fc.constantFrom(
    'limit',
    'offset',
    'sort',
    'order',
    'status',
    'label',
    'namespace',
    'from',
    'to',
    'lines',
    'cursor',
    'vendor',
    'format',
  ),
  fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String), fc.constant('-1'), fc.constant('1e99')),
);

const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/json; charset=latin1',
      'application/x-www-form-urlencoded',
    ),
    'idempotency-key': fc.string({ maxLength: 200 }).map((k) => k.replace(/[^\x20-\x7e]/g, '')),
    authorization: fc.constantFrom('Bearer nope', 'Basic Zm9vOmJhcg==', 'Bearer '),
  },
  { requiredKeys: [] },
);

/** Generated bad input on every route: never a 5xx, and a refused request writes nothing. */
describeWithPostgres('every API route under generated bad input (hub, real PostgreSQL)', () => {
  let h: HubHarness;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', HCN_START_DEADLINE_SECONDS: '600' });
    await registerNode(h, { hostname: 'fuzz-node' });
  });
  afterAll(async () => h?.close());

  it('answers every request below 500, and a 4xx writes no event', async () => {
    const ops = await operations(h);
    expect(ops.length).toBeGreaterThan(30);
    const events = async () => (await h.store.readAll()).length;
    const failures: string[] = [];
    const seen = { routes: new Set<string>(), refused: 0, answered: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ops),
        pathValue,
        body,
        query,
        headers,
        async (op, value, payload, params, extra) => {
          const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(value));
          const qs = new URLSearchParams(params).toString();
          const before = await events();
          const sent = op.method === 'GET' || op.method === 'DELETE' ? undefined : payload;
          const response = await h.request(op.method, `${path}${qs ? `?${qs}` : ''}`, sent, extra);
          const label = `${op.method} ${path}?${qs} ${JSON.stringify(sent)?.slice(0, 200)} -> ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`;
          seen.routes.add(`${op.method} ${op.path}`);
          if (response.status >= 400) seen.refused += 1;
          else seen.answered += 1;
          if (response.status >= 500) failures.push(label);
          else if (response.status >= 400 && (await events()) !== before)
            failures.push(`wrote on refusal: ${label}`);
          return true;
        },
      ),
      { numRuns: 600, seed: 20261126 },
    );
    expect(failures).toEqual([]);
    // the run reached most routes, and both refusals and answers
    expect(seen.routes.size).toBeGreaterThan(ops.length * 0.8);
    expect(seen.refused).toBeGreaterThan(300);
  }, 600000);
});
