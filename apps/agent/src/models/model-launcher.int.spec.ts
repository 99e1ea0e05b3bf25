import { MODEL_FAILURES, type AgentCommand } from '@hcn/contracts';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookupUser } from '../isolation/workload-user';
import { ModelFrameworks, checkSklearnPython } from './model-frameworks';
import { ModelLauncher, type PreparedModel } from './model-launcher';

type RunCommand = Extract<AgentCommand, { kind: 'run' }>;
const asRoot = process.getuid?.() === 0;

/** The model launcher against real files and a real HTTP server on loopback. */
describe('ModelLauncher (real files, a real HTTP server)', () => {
  let dir: string;
  let server: Server;
  let url: string;
  let release: () => void = () => undefined;
  const frameworks = new ModelFrameworks(
    {
      echo: { command: '/bin/echo', args: ['{model}', '{port}'], env: {} },
      boxed: { image: 'localhost/x:1', args: ['{model}'], env: {} },
    },
    undefined,
    () => undefined,
  );
  const launcher = (extra: Partial<ConstructorParameters<typeof ModelLauncher>[0]> = {}) =>
    new ModelLauncher({
      entry: (f, r) => frameworks.entry(f, r),
      baseDir: join(dir, 'allocations'),
      download: { maxBytes: 1024, timeoutSeconds: 1 },
      allowedHostPaths: [join(dir, 'shared')],
      reservePorts: async () => [{ name: 'http', containerPort: 41000, hostPort: 41000, protocol: 'tcp' }],
      ...extra,
    });
  let seq = 0;
  const command = (model: Record<string, unknown>): RunCommand => ({
    commandId: `c-${++seq}`,
    nodeId: '00000000-0000-4000-8000-0000000000b1',
    kind: 'run',
    placement: {
      workloadId: '00000000-0000-4000-8000-000000000001',
      allocationId: `00000000-0000-4000-8000-0000000000${String(seq).padStart(2, '0')}`,
      instance: 0,
      attempt: 0,
      command: '',
      args: [],
      env: {},
      stopGraceSeconds: 1,
      service: { ports: [{ name: 'http', hostPort: 0, protocol: 'tcp' }] },
      model: { framework: 'echo', runtime: 'process', namespace: 'default', ...model },
    },
  });
  /** Runs one preparation to its end: what it launched, or why it failed. */
  const outcome = (l: ModelLauncher, c: RunCommand) =>
    new Promise<{ launched?: PreparedModel; failed?: string }>((done) =>
      l.start(
        c,
        (launched) => done({ launched }),
        (failed) => done({ failed }),
      ),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-model-launcher-'));
    writeFileSync(join(dir, 'iris.joblib'), 'model bytes');
    server = createServer((req, res) => {
      if (req.url === '/m/iris.joblib') return res.end('downloaded model');
      if (req.url === '/big') return res.end(Buffer.alloc(4096));
      if (req.url === '/slow') {
        res.write('x');
        return void new Promise<void>((r) => (release = r)).then(() => res.end('y'));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    release();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('launches a process model on its path and port', async () => {
    const { launched } = await outcome(launcher(), command({ modelPath: join(dir, 'iris.joblib') }));
    expect(launched?.command.placement).toMatchObject({
      command: '/bin/echo',
      args: [join(dir, 'iris.joblib'), '41000'],
      service: { ports: [{ name: 'http', hostPort: 41000 }] },
    });
  });

  it('downloads a modelUrl into the allocation directory', async () => {
    const c = command({ modelUrl: `${url}/m/iris.joblib` });
    const { launched } = await outcome(launcher(), c);
    const path = join(dir, 'allocations', c.placement.allocationId, 'model', 'iris.joblib');
    expect(launched?.command.placement.args).toEqual([path, '41000']);
    expect(readFileSync(path, 'utf8')).toBe('downloaded model');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unserved framework', { framework: 'torch' }, MODEL_FAILURES.frameworkUnavailable],
    ['a framework served by another runtime', { runtime: 'container' }, MODEL_FAILURES.frameworkUnavailable],
    ['a missing modelPath', { modelPath: '/nonexistent/m.joblib' }, MODEL_FAILURES.notFound],
    [
      'a container modelPath outside the allowed host paths',
      { framework: 'boxed', runtime: 'container', modelPath: 'SELF/iris.joblib' },
      MODEL_FAILURES.pathNotAllowed,
    ],
    ['a URL that answers 404', { modelUrl: 'URL/nothing' }, MODEL_FAILURES.downloadFailed],
    ['a URL nobody answers', { modelUrl: 'http://127.0.0.1:1/m' }, MODEL_FAILURES.downloadFailed],
    ['a URL over the cap', { modelUrl: 'URL/big' }, MODEL_FAILURES.downloadTooLarge],
    ['a URL slower than the limit', { modelUrl: 'URL/slow' }, MODEL_FAILURES.downloadTimeout],
  ])('fails %s with its reason, leaving no partial file', async (_name, model, code) => {
    const filled = Object.fromEntries(
      Object.entries({ modelPath: join(dir, 'iris.joblib'), ...model }).map(([k, v]) => [
        k,
        typeof v === 'string' ? v.replace('SELF', dir).replace('URL', url) : v,
      ]),
    );
    if (filled.modelUrl) delete filled.modelPath;
    const c = command(filled);
    const { failed } = await outcome(launcher(), c);
    expect(failed).toMatch(new RegExp(`^${code.replace('.', '\\.')}: `));
    release();
    const partial = join(dir, 'allocations', c.placement.allocationId, 'model');
    expect(() => readFileSync(join(partial, 'slow.part'))).toThrow();
  });

  it('a cancelled download neither launches nor fails', async () => {
    const l = launcher({ download: { maxBytes: 1024, timeoutSeconds: 30 } });
    const c = command({ modelUrl: `${url}/slow` });
    const seen: string[] = [];
    l.start(
      c,
      () => seen.push('launched'),
      (reason) => seen.push(reason),
    );
    expect(l.knows(c.placement.allocationId)).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(await l.cancel(c.placement.allocationId)).toBe(true);
    release();
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
    expect(l.knows(c.placement.allocationId)).toBe(false);
    expect(await l.cancel(c.placement.allocationId)).toBe(false);
  });

  (asRoot ? it : it.skip)(
    'as root: a process model the workload user cannot read is MODEL.NOT_READABLE',
    async () => {
      const nobody = lookupUser('nobody');
      if (!nobody) throw new Error('no nobody account');
      const privateDir = mkdtempSync(join(tmpdir(), 'hcn-model-private-'));
      chmodSync(privateDir, 0o700);
      writeFileSync(join(privateDir, 'm.joblib'), 'secret');
      try {
        const { failed } = await outcome(
          launcher({ user: nobody }),
          command({ modelPath: join(privateDir, 'm.joblib') }),
        );
        expect(failed).toMatch(/^MODEL\.NOT_READABLE: .* is not readable by nobody$/);
        // and the built-in server's check says why a Python is of no use to that user
        expect(await checkSklearnPython('/nonexistent/python', nobody)).toMatch(/cannot run as nobody/);
      } finally {
        rmSync(privateDir, { recursive: true, force: true });
      }
    },
  );
});
