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
  const code: string | undefined = workload.error?.code;
  void code;
  await client.GET('/v1/workloads', { params: { query: { namespace: 'team-a' } } });
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

  it('generates and compiles with tsc (strict), typed paths, parameters and bodies', () => {
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
