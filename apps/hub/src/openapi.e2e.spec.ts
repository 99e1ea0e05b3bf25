import { describeWithPostgres } from '@hcn/testing';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, startHubHarness } from './testing/hub-harness';
import { canonicalOpenApiJson } from './ops-listener';

const ROOT = join(__dirname, '..', '..', '..');

/** The operations of a document: "METHOD path" and the operation object. */
function operations(doc: any): Array<[string, any]> {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]): [string, any] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  );
}

/** What differs between two documents, by operation and component, for the failure message. */
function differences(served: any, committed: any): string[] {
  const a = new Map(operations(served).map(([key, op]) => [key, canonicalOpenApiJson(op)]));
  const b = new Map(operations(committed).map(([key, op]) => [key, canonicalOpenApiJson(op)]));
  const lines = [...a.keys()].filter((key) => !b.has(key)).map((key) => `  not in openapi.json: ${key}`);
  lines.push(...[...b.keys()].filter((key) => !a.has(key)).map((key) => `  no longer served: ${key}`));
  lines.push(
    ...[...a].filter(([key, op]) => b.has(key) && b.get(key) !== op).map(([key]) => `  changed: ${key}`),
  );
  for (const part of ['openapi', 'info', 'security', 'components', 'tags'] as const) {
    if (canonicalOpenApiJson(served[part] ?? null) !== canonicalOpenApiJson(committed[part] ?? null)) {
      lines.push(`  changed: ${part}`);
    }
  }
  return lines;
}

describeWithPostgres(
  'OpenAPI document served at /docs/openapi.json (hub + projector, real PostgreSQL)',
  () => {
    let h: HubHarness;
    let served: any;

    beforeAll(async () => {
      h = await startHubHarness();
      const response = await h.request('GET', '/docs/openapi.json');
      expect(response.status).toBe(200);
      served = response.body;
    });
    afterAll(async () => h?.close());

    it('is a valid OpenAPI 3.1 document for a maintained validator, its schemas without $schema', () => {
      expect(served.openapi).toBe('3.1.0');
      expect(JSON.stringify(served)).not.toContain('"$schema"');
      const dir = mkdtempSync(join(tmpdir(), 'hcn-openapi-'));
      try {
        writeFileSync(join(dir, 'openapi.json'), JSON.stringify(served));
        let output: string;
        try {
          output = execFileSync(
            process.execPath,
            [join(ROOT, 'scripts', 'validate-openapi.mjs'), 'openapi.json'],
            {
              cwd: dir,
              encoding: 'utf8',
              stdio: 'pipe',
            },
          );
        } catch (error) {
          throw new Error(
            `the served document is not valid OpenAPI:\n${(error as { stderr?: string }).stderr}`,
          );
        }
        expect(output).toContain('valid (3.1)');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('declares bearer auth for every operation (Swagger UI sends the token), registration also anonymous', () => {
      expect(served.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(served.security).toEqual([{ bearer: [] }]);
      // proofs in the body, and only there: a child site's join token, a gossip message's or a delegation's HMAC
      const anonymousOnly = [
        'POST /v1/federation/sites',
        'POST /v1/federation/gossip',
        'POST /v1/federation/delegations',
        'POST /v1/federation/delegations/{delegationId}/chain',
        'POST /v1/federation/delegations/{delegationId}/status',
        'POST /v1/federation/delegations/{delegationId}/control',
        'POST /v1/federation/delegations/{delegationId}/logs',
      ];
      for (const [key, operation] of operations(served)) {
        const security = operation.security ?? served.security;
        const expected = anonymousOnly.includes(key) ? [{}] : true;
        const actual = anonymousOnly.includes(key)
          ? security
          : security.some((requirement: object) => 'bearer' in requirement);
        expect([key, actual]).toEqual([key, expected]);
      }
      expect(served.paths['/v1/agents/register'].post.security).toEqual(
        expect.arrayContaining([{}, { bearer: [] }]),
      );
    });

    it('answers errors as RFC 9457 problems (application/problem+json) on every operation', () => {
      expect(served.components.schemas.Problem.required).toEqual(
        expect.arrayContaining(['type', 'title', 'status', 'detail', 'instance', 'code']),
      );
      for (const [key, operation] of operations(served)) {
        expect([key, operation.responses.default?.content['application/problem+json'].schema]).toEqual([
          key,
          { $ref: '#/components/schemas/Problem' },
        ]);
      }
    });

    it('types every query parameter, answers every 2xx with a schema, and documents the convention headers', () => {
      for (const [key, operation] of operations(served)) {
        for (const p of operation.parameters ?? []) {
          if (p.in === 'query') expect([key, p.name, typeof p.schema]).toEqual([key, p.name, 'object']);
        }
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          if (!status.startsWith('2')) continue;
          expect([key, status, Object.keys(response.content ?? {})]).toEqual([
            key,
            status,
            ['application/json'],
          ]);
          if (status === '201') expect([key, response.headers?.Location]).toEqual([key, expect.any(Object)]);
        }
        expect([key, operation.responses['503']?.headers?.['Retry-After']]).toEqual([
          key,
          expect.any(Object),
        ]);
      }
      const list = served.paths['/v1/workloads'].get;
      expect(list.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/WorkloadPage',
      });
      expect(served.paths['/v1/workloads/{id}'].get.responses['200'].headers.ETag).toBeDefined();
      for (const [path, method] of [
        ['/v1/workloads/{id}', 'put'],
        ['/v1/workloads/{id}', 'delete'],
        ['/v1/domains/{id}', 'put'],
        ['/v1/quotas/{namespace}', 'put'],
        ['/v1/templates/{id}', 'put'],
        ['/v1/templates/{id}', 'delete'],
      ]) {
        const operation = served.paths[path][method];
        expect([path, method, operation.responses['412']?.content]).toEqual([
          path,
          method,
          expect.any(Object),
        ]);
        expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/If-Match' });
      }
    });

    it('answers typed bodies from the zod schemas: every list a page of typed items, the resources and commands by name', () => {
      const schemas = served.components.schemas;
      const answerOf = (key: string) => {
        const [method, path] = key.split(' ');
        const responses = served.paths[path][method.toLowerCase()].responses;
        const status = Object.keys(responses).find((s) => s.startsWith('2'))!;
        return responses[status].content['application/json'].schema;
      };
      // every list: a named page whose items are a named schema with declared members
      for (const [key, operation] of operations(served)) {
        if (!(operation.parameters ?? []).some((p: any) => p.name === 'cursor')) continue;
        const ref: string = answerOf(key).$ref ?? '';
        expect([key, ref]).toEqual([key, expect.stringMatching(/^#\/components\/schemas\/\w+Page$/)]);
        const page = schemas[ref.split('/').pop()!];
        expect(page.required).toEqual(['items', 'nextCursor', 'total']);
        const item = schemas[page.properties.items.items.$ref.split('/').pop()];
        expect([key, Object.keys(item.properties).length > 3]).toEqual([key, true]);
      }
      for (const [key, id] of [
        ['GET /v1/workloads/{id}', 'Workload'],
        ['GET /v1/nodes/{id}', 'Node'],
        ['GET /v1/domains/{id}', 'Domain'],
        ['GET /v1/quotas/{namespace}', 'Quota'],
        ['GET /v1/templates/{id}', 'Template'],
        ['GET /v1/taskqueues/{id}', 'TaskQueue'],
        ['GET /v1/federation/sites/{id}', 'Site'],
        ['POST /v1/workloads', 'SubmitWorkloadResult'],
        ['POST /v1/workloads/batch', 'BatchSubmission'],
        ['POST /v1/workloads/{id}/stop', 'WorkloadCommandResult'],
        ['POST /v1/nodes/{id}/drain', 'NodeCommandResult'],
        ['PUT /v1/quotas/{namespace}', 'QuotaCommandResult'],
      ]) {
        expect([key, answerOf(key)]).toEqual([key, { $ref: `#/components/schemas/${id}` }]);
      }
      // the shapes clients read: a workload's spec (the submitted schema) and status, a list item's resources
      expect(schemas.Workload.properties.spec).toEqual({ $ref: '#/components/schemas/WorkloadSpec' });
      expect(schemas.WorkloadSpec.properties.resources).toBeDefined();
      expect(schemas.Workload.required).toEqual(expect.arrayContaining(['workloadId', 'status', 'spec']));
      expect(schemas.WorkloadListItem.properties.status.enum).toContain('running');
      expect(schemas.Node.properties.status.enum).toEqual(['online', 'offline', 'deregistered']);
      expect(JSON.stringify(served)).not.toContain('x-hcn-answer');
    });

    it('serves answers that match their schemas (harness hubs check every answer: a drift answers 500)', async () => {
      for (const path of [
        '/v1/workloads',
        '/v1/nodes',
        '/v1/domains',
        '/v1/quotas',
        '/v1/templates',
        '/v1/devices',
      ]) {
        const response = await h.request('GET', path);
        expect([path, response.status, response.body.code]).toEqual([path, 200, undefined]);
      }
      const quota = await h.request('GET', '/v1/quotas/team-a');
      expect([quota.status, quota.body.limitsSource]).toEqual([200, 'none']);
    });

    it('is the committed openapi.json', () => {
      const committed = readFileSync(join(ROOT, 'openapi.json'), 'utf8');
      if (canonicalOpenApiJson(served) !== committed) {
        const changes = differences(served, JSON.parse(committed));
        throw new Error(
          'openapi.json (repository root) differs from the document the hub serves: routes, decorators or request ' +
            'schemas changed since it was generated. Run `npm run openapi` and commit openapi.json.\n' +
            (changes.length > 0 ? changes.join('\n') : '  (formatting only)'),
        );
      }
    });
  },
);
