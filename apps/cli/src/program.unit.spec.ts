import { CliIo } from './context';
import { runCli } from './program';

/** A request the CLI sent, as the hub would see it. */
interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** What the recording fetch answers: a status and a body (objects as JSON), or a thrown error. */
type Reply =
  { status?: number; body?: unknown; contentType?: string; headers?: Record<string, string> } | Error;

/** Runs the CLI in-process with a recording fetch that answers from `replies` in order. */
async function cli(
  argv: string[],
  replies: Reply[] = [],
  options: { env?: NodeJS.ProcessEnv; stdin?: string } = {},
) {
  const sent: Sent[] = [];
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: options.env ?? { HCN_ADDR: 'http://hub.test:8080', HCN_TOKEN: 'secret-token' },
    now: () => Date.parse('2026-11-01T12:00:00Z'),
    stdin: () => options.stdin ?? '',
    fetch: async (url, init) => {
      sent.push({
        method: String(init.method),
        url,
        headers: init.headers as Record<string, string>,
        body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
      });
      const reply = replies.shift() ?? { body: {} };
      if (reply instanceof Error) throw reply;
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      return new Response(text, {
        status: reply.status ?? 200,
        headers: { 'content-type': reply.contentType ?? 'application/json', ...reply.headers },
      });
    },
  };
  const status = await runCli(argv, io);
  return { status, stdout, stderr, sent };
}

describe('hcn argument parsing', () => {
  it('turns filters into query parameters, repeating repeatable ones, with the token and address of the environment', async () => {
    const run = await cli([
      'node',
      'list',
      '--domain',
      'site-a',
      '-l',
      'rack=r1',
      '--label',
      'zone=z',
      '--limit',
      '5',
    ]);
    expect(run.status).toBe(0);
    expect(run.sent).toEqual([
      {
        method: 'GET',
        url: 'http://hub.test:8080/v1/nodes?domain=site-a&label=rack%3Dr1&label=zone%3Dz&limit=5',
        headers: expect.objectContaining({ authorization: 'Bearer secret-token' }),
        body: undefined,
      },
    ]);
  });

  it('takes --addr and --token over the environment, before or after the command', async () => {
    const run = await cli([
      'workload',
      'list',
      '--addr',
      'https://other.test/',
      '--token',
      't2',
      '--status',
      'running',
      '--status',
      'failed',
    ]);
    expect(run.sent[0].url).toBe('https://other.test/v1/workloads?status=running&status=failed');
    expect(run.sent[0].headers.authorization).toBe('Bearer t2');
    const before = await cli(['--addr', 'http://a.test:1234', 'quota', 'list'], [], { env: {} });
    expect(before.sent[0].url).toBe('http://a.test:1234/v1/quotas?limit=1000');
    expect(before.sent[0].headers.authorization).toBeUndefined();
    const defaults = await cli(['domain', 'list'], [], { env: {} });
    expect(defaults.sent[0].url).toBe('http://127.0.0.1:8080/v1/domains?limit=1000');
  });

  it('prints the raw answer with --json wherever it stands', async () => {
    const answer = { items: [{ nodeId: 'n1' }], total: 1 };
    for (const argv of [
      ['--json', 'node', 'list'],
      ['node', '--json', 'list'],
      ['node', 'list', '--json'],
    ]) {
      const run = await cli(argv, [{ body: answer }]);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(answer);
    }
  });

  it('submits one YAML document to /v1/workloads and several as one batch', async () => {
    const one = await cli(
      ['workload', 'submit', '-f', '-', '-n', 'team-a', '--idempotency-key', 'k1'],
      [{ status: 201, body: { workloadId: 'w1', status: 'starting', revision: 3, created: true } }],
      { stdin: 'name: job\ncommand: sh\nargs: ["-c", "true"]\n' },
    );
    expect(one.status).toBe(0);
    expect(one.sent[0]).toMatchObject({
      method: 'POST',
      url: 'http://hub.test:8080/v1/workloads',
      headers: expect.objectContaining({ 'idempotency-key': 'k1', 'content-type': 'application/json' }),
      body: { name: 'job', namespace: 'team-a', command: 'sh', args: ['-c', 'true'] },
    });
    expect(one.stdout).toBe('WORKLOAD ID  NAME  STATUS    CREATED\nw1           job   starting  yes\n');
    const batch = await cli(
      ['workload', 'submit', '-f', '-'],
      [
        {
          status: 201,
          body: {
            workloads: [
              { workloadId: 'a', status: 'starting' },
              { workloadId: 'b', status: 'unschedulable' },
            ],
          },
        },
      ],
      { stdin: 'name: a\n---\nname: b\n' },
    );
    expect(batch.sent[0]).toMatchObject({
      url: 'http://hub.test:8080/v1/workloads/batch',
      body: { workloads: [{ name: 'a' }, { name: 'b' }] },
    });
    expect(batch.stdout.split('\n')[2]).toMatch(/^b +b +unschedulable +yes$/);
  });

  it('merges quota flags into the limits already set, or replaces them with --replace', async () => {
    const current = {
      namespace: 'ns',
      limits: { cpuMillis: 1000, workloads: 9 },
      limitsSource: 'namespace',
      used: {},
      holders: 0,
    };
    const merged = await cli(
      ['quota', 'set', 'ns', '--cpu', '500m', '--memory', '1.5Gi', '--unset', 'workloads'],
      [{ body: current }, { body: {} }],
    );
    expect(merged.status).toBe(0);
    expect(merged.sent.map((s) => [s.method, s.url])).toEqual([
      ['GET', 'http://hub.test:8080/v1/quotas/ns'],
      ['PUT', 'http://hub.test:8080/v1/quotas/ns'],
    ]);
    expect(merged.sent[1].body).toEqual({ limits: { cpuMillis: 500, memoryBytes: 1.5 * 2 ** 30 } });
    expect(merged.stdout).toBe('quota ns set: cpu=500m, memory=1.5Gi\n');
    const replaced = await cli(['quota', 'set', 'ns', '--replace', '--accelerators', '2']);
    expect(replaced.sent.map((s) => s.method)).toEqual(['PUT']);
    expect(replaced.sent[0].body).toEqual({ limits: { accelerators: 2 } });
    const tagged = await cli(
      ['quota', 'set', 'ns', '--workloads', '3'],
      [{ body: current, headers: { etag: '"7"' } }, { body: {} }],
    );
    expect(tagged.sent[1].headers['if-match']).toBe('"7"');
    expect(merged.sent[1].headers['if-match']).toBeUndefined();
    const defaulted = await cli(
      ['quota', 'set', 'ns', '--workloads', '3'],
      [{ body: { ...current, limitsSource: 'default' } }, { body: {} }],
    );
    expect(defaulted.sent[1].body).toEqual({ limits: { workloads: 3 } });
  });

  it('changes node labels: key=value sets, key- removes, the rest is kept', async () => {
    const run = await cli(
      ['node', 'labels', 'n1', 'zone=z2', 'rack-'],
      [
        { body: { nodeId: 'n1', labels: { rack: 'r1', gpu: 'yes', zone: 'z1' } } },
        { body: { nodeId: 'n1', revision: 4 } },
      ],
    );
    expect(run.sent[1]).toMatchObject({
      method: 'PUT',
      url: 'http://hub.test:8080/v1/nodes/n1/labels',
      body: { labels: { gpu: 'yes', zone: 'z2' } },
    });
    expect(run.stdout).toBe('node n1 labels gpu=yes,zone=z2 (revision 4)\n');
  });

  it('escapes ids in paths and sends template parameters', async () => {
    const run = await cli(
      ['template', 'instantiate', 'a/b', '-p', 'x=1', '-p', 'y=a=b'],
      [{ body: { workloadId: 'w', status: 'starting' } }],
    );
    expect(run.sent[0]).toMatchObject({
      url: 'http://hub.test:8080/v1/templates/a%2Fb/instantiate',
      body: { parameters: { x: '1', y: 'a=b' } },
    });
  });
});

describe('hcn exit statuses', () => {
  it('refuses unknown options, commands and bad values with exit 2 before sending anything', async () => {
    for (const argv of [
      ['node', 'list', '--bogus'],
      ['node', 'lst'],
      ['node', 'show'],
      ['node', 'show', 'a', 'b'],
      ['node', 'list', '--limit', 'ten'],
      ['quota', 'set', 'ns', '--cpu', 'lots'],
      ['quota', 'set', 'ns'],
      ['workload', 'submit'],
      ['workload', 'logs', 'w', '--stream', 'stdin'],
      ['node', 'labels', 'n1', 'nonsense'],
      ['report', 'nonsense'],
      ['audit', 'explain', 'w1'],
      ['--addr', 'ftp://x', 'node', 'list'],
      ['node'],
      [],
    ]) {
      const run = await cli(argv);
      expect({ argv, status: run.status, sent: run.sent.length, stdout: run.stdout }).toEqual({
        argv,
        status: 2,
        sent: 0,
        stdout: argv.length <= 1 ? expect.any(String) : '',
      });
      expect(run.stderr).not.toBe('');
    }
    const unknown = await cli(['node', 'list', '--bogus']);
    expect(unknown.stderr).toBe("hcn: unknown option '--bogus'\n(add --help for this command's usage)\n");
  });

  it('prints help and the version with exit 0', async () => {
    const help = await cli(['quota', 'set', '--help']);
    expect([help.status, help.sent.length]).toEqual([0, 0]);
    expect(help.stdout).toContain('Usage: hcn quota set [options] <namespace>');
    expect(help.stdout).toContain('--memory <bytes>');
    expect(help.stdout).toContain('Global Options:');
    const version = await cli(['--version']);
    expect([version.status, version.stdout]).toEqual([0, `${require('../../../package.json').version}\n`]);
    const top = await cli(['--help']);
    expect(top.stdout).toContain('Exit status:');
  });

  it("prints an API error as 'hcn: CODE: message' and exits 1, whichever error body the hub sends", async () => {
    const hcn = await cli(
      ['node', 'show', 'x'],
      [{ status: 404, body: { code: 'NODE.NOT_FOUND', detail: 'Node x is not known' } }],
    );
    expect([hcn.status, hcn.stdout, hcn.stderr]).toEqual([
      1,
      '',
      'hcn: NODE.NOT_FOUND: Node x is not known\n',
    ]);
    const problem = await cli(
      ['workload', 'show', 'x'],
      [
        {
          status: 400,
          contentType: 'application/problem+json',
          body: {
            type: 'about:blank',
            title: 'Bad Request',
            status: 400,
            detail: 'not a uuid',
            code: 'WORKLOAD.ID',
          },
        },
      ],
    );
    expect([problem.status, problem.stderr]).toEqual([1, 'hcn: WORKLOAD.ID: not a uuid\n']);
    const plain = await cli(
      ['node', 'list'],
      [{ status: 418, body: 'short and stout', contentType: 'text/plain' }],
    );
    expect([plain.status, plain.stderr]).toEqual([1, 'hcn: HTTP.418: short and stout\n']);
  });

  it('exits 3 with one line when the hub cannot be reached or is unavailable', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    const down = await cli(['node', 'list'], [refused]);
    expect([down.status, down.stdout, down.stderr]).toEqual([
      3,
      '',
      'hcn: CLI.HUB_UNREACHABLE: cannot reach the hub at http://hub.test:8080 (ECONNREFUSED)\n',
    ]);
    const timeout = await cli(
      ['node', 'list', '--timeout', '2'],
      [Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    );
    expect([timeout.status, timeout.stderr]).toEqual([
      3,
      'hcn: CLI.HUB_UNREACHABLE: no answer from the hub at http://hub.test:8080 within 2 s\n',
    ]);
    const unavailable = await cli(
      ['node', 'list'],
      [{ status: 503, body: { code: 'HUB.UNAVAILABLE', detail: 'event store down' } }],
    );
    expect([unavailable.status, unavailable.stderr]).toEqual([3, 'hcn: HUB.UNAVAILABLE: event store down\n']);
  });

  it('exits 3 when audit has no event log to read (could not check)', async () => {
    const run = await cli(['audit', 'verify', '--quiet'], [], { env: {} });
    expect([run.status, run.stdout]).toEqual([3, '']);
    expect(run.stderr).toContain(
      'hcn: CLI.LOG_UNREACHABLE: cannot read the event log: CLI.NO_EVENT_STORE: Set DATABASE_URL',
    );
  });
});
