import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');
/** Inside node_modules so that the client's `openapi-fetch` import resolves; ignored by git. */
const DIR = join(ROOT, 'node_modules', '.cache', 'hcn-openapi-client');

/**
 * A caller of the generated client: typed paths, path parameters and bodies. Each `@ts-expect-error` fails to
 * compile when its line is NOT an error, so loose (`any`) types fail the spec as well as missing ones.
 */
const USAGE = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080', headers: { authorization: 'Bearer t' } });

export async function use(): Promise<void> {
  const workload = await client.GET('/v1/workloads/{id}', { params: { path: { id: 'w-1' } } });
  // an error is the Problem schema: its dotted code and detail are typed
  const code: string | undefined = workload.error?.code;
  const detail: string | undefined = workload.error?.detail;
  const status: number | undefined = workload.error?.status;
  void [code, detail, status];
  // a single GET: its answer typed from the zod schema that defines it
  if (workload.data) {
    const cpuMillis: number = workload.data.spec.resources.cpuMillis;
    const status: 'running' | 'failed' | string = workload.data.status;
    const node: string = workload.data.allocations[0].nodeId;
    const endpoints: Record<string, string[]> | undefined = workload.data.service?.endpoints;
    void [cpuMillis, status, node, endpoints];
    // @ts-expect-error the spec has no such field
    void workload.data.spec.resources.cpuCores;
    // @ts-expect-error status is a string, not a number
    const wrongStatus: number = workload.data.status;
    void wrongStatus;
  }
  const domain = await client.GET('/v1/domains/{id}', { params: { path: { id: 'site-a' } } });
  const parent: string | null | undefined = domain.data?.parentId;
  void parent;
  const node = await client.GET('/v1/nodes/{id}', { params: { path: { id: 'n-1' } } });
  const nodeStatus: 'online' | 'offline' | 'deregistered' | undefined = node.data?.status;
  const runtime: 'idle' | 'running' | 'error' | undefined = node.data?.runtime.state;
  void [nodeStatus, runtime];
  // @ts-expect-error a node's status is one of three
  const unknownStatus: 'draining' | undefined = node.data?.status;
  void unknownStatus;
  // a list: typed query parameters (limit a number, cursor a string) and a page of typed items
  const page = await client.GET('/v1/workloads', {
    params: { query: { namespace: 'team-a', limit: 50, cursor: 'abc', sort: 'name', order: 'asc' } },
  });
  const next: string | null | undefined = page.data?.nextCursor;
  const total: number | undefined = page.data?.total;
  const first = page.data?.items[0];
  const firstStatus: string | undefined = first?.status;
  const firstCpu: number | undefined = first?.resources.cpuMillis;
  void [next, total, firstStatus, firstCpu];
  // @ts-expect-error list items carry no spec (the single workload does)
  void first?.spec;
  // a command's answer
  const stopped = await client.POST('/v1/workloads/{id}/stop', { params: { path: { id: 'w-1' } } });
  const events: string[] | undefined = stopped.data?.events;
  const revision: number | undefined = stopped.data?.revision;
  void [events, revision];
  const batch = await client.POST('/v1/workloads/batch', { body: { workloads: [] } as never });
  const created: number | undefined = batch.data?.created;
  const firstId: string | undefined = batch.data?.workloads[0]?.workloadId;
  void [created, firstId];
  // @ts-expect-error limit is a number
  await client.GET('/v1/workloads', { params: { query: { limit: 'ten' } } });
  // @ts-expect-error sort is one of the listing's fields
  await client.GET('/v1/workloads', { params: { query: { sort: 'hops' } } });
  // @ts-expect-error a Problem's code is a string
  const wrong: number | undefined = workload.error?.code;
  void wrong;
  await client.POST('/v1/agents/register', {
    body: {
      joinToken: 'j',
      domainId: 'site-a',
      hostname: 'node-1',
      arch: 'x64',
      os: 'linux',
      cpuCores: 4,
      memoryBytes: 1024,
      diskBytes: 4096,
      agentVersion: '1.0.0',
    },
  });
  // @ts-expect-error a path the API does not have
  await client.GET('/v1/no-such-route');
  // @ts-expect-error the path parameter is required
  await client.GET('/v1/workloads/{id}', {});
  // @ts-expect-error cpuCores is a number
  await client.POST('/v1/agents/register', { body: { joinToken: 'j', cpuCores: 'four' } });
}
`;

describe('a TypeScript client generated from openapi.json (openapi-typescript + openapi-fetch)', () => {
  afterAll(() => rmSync(DIR, { recursive: true, force: true }));

  it('generates and compiles with tsc (strict): typed paths, query parameters, bodies, answers (fields) and problems', () => {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    execFileSync(process.execPath, [cli, join(ROOT, 'openapi.json'), '-o', join(DIR, 'schema.d.ts')], {
      stdio: 'pipe',
    });
    writeFileSync(join(DIR, 'usage.ts'), USAGE);
    const program = ts.createProgram([join(DIR, 'usage.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      skipLibCheck: true,
      types: [],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(errors).toEqual([]);
  }, 60_000);
});
