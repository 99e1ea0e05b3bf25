import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HubHarness,
  TEST_ADMIN_TOKEN,
  registerNode,
  signedReport,
  startHubHarness,
} from '../../hub/src/testing/hub-harness';
import { HcnRun, ROOT, runHcn, startHcn } from './testing/run-hcn';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The rows of a table as cells split on runs of two or more spaces (the header first). */
function rows(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/).map((c) => c.trim()));
}

const ok = (run: HcnRun) =>
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });

describeWithPostgres('hcn CLI over REST (a running hub, real PostgreSQL, the CLI as a process)', () => {
  let h: HubHarness;
  let env: Record<string, string>;
  let dir: string;
  let worker: { nodeId: string; commandKey: string };
  let spare: { nodeId: string; commandKey: string };
  const hcn = (...argv: string[]) => runHcn(env, argv);
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', HCN_START_DEADLINE_SECONDS: '600' });
    env = { HCN_ADDR: h.hub.url, HCN_TOKEN: TEST_ADMIN_TOKEN };
    dir = mkdtempSync(join(tmpdir(), 'hcn-cli-'));
    worker = await registerNode(h, { hostname: 'cli-worker', domainId: 'site-a', labels: { rack: 'r1' } });
    spare = await registerNode(h, { hostname: 'cli-spare', domainId: 'site-a', labels: { rack: 'r2' } });
  });
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints the version of package.json, and help per command', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const run = await hcn('--version');
    ok(run);
    expect(run.stdout).toBe(`${version}\n`);
    const help = await hcn('workload', 'submit', '--help');
    ok(help);
    expect(help.stdout).toContain('Usage: hcn workload submit [options]');
    expect(help.stdout).toContain('-f, --file <path>');
  });

  it('lists nodes as an aligned table, or the raw answer with --json, and shows one', async () => {
    const list = await hcn('node', 'list', '--sort', 'hostname');
    ok(list);
    const [header, first, second] = list.stdout.trimEnd().split('\n');
    expect(rows(list.stdout)[0]).toEqual([
      'NODE ID',
      'HOSTNAME',
      'DOMAIN',
      'STATUS',
      'RUNTIME',
      'CPU',
      'MEMORY',
      'ACCEL',
      'LAST SEEN',
    ]);
    expect(rows(first)[0].slice(0, 4)).toEqual([spare.nodeId, 'cli-spare', 'site-a', 'online']);
    expect(rows(second)[0].slice(0, 4)).toEqual([worker.nodeId, 'cli-worker', 'site-a', 'online']);
    // aligned: every column starts where its header does
    expect(first.indexOf('cli-spare')).toBe(header.indexOf('HOSTNAME'));
    expect(second.indexOf('cli-worker')).toBe(header.indexOf('HOSTNAME'));
    const json = await hcn('node', 'list', '--json');
    ok(json);
    const body = JSON.parse(json.stdout);
    expect(body).toEqual((await h.request('GET', '/v1/nodes')).body);
    const show = await hcn('node', 'show', worker.nodeId);
    ok(show);
    expect(show.stdout).toMatch(/^Node: +[0-9a-f-]{36}$/m);
    expect(show.stdout).toMatch(/^Hostname: +cli-worker$/m);
    expect(show.stdout).toMatch(/^Labels: +rack=r1$/m);
  });

  it('drains a node and changes its labels (kept, set, removed)', async () => {
    const drain = await hcn('node', 'drain', spare.nodeId, '--reason', 'maintenance');
    ok(drain);
    expect(drain.stdout).toMatch(new RegExp(`^node ${spare.nodeId} draining \\(revision \\d+\\)\n$`));
    await eventuallyExpect(async () => {
      const show = await hcn('node', 'show', spare.nodeId);
      expect(show.stdout).toMatch(/^Status: +online,draining$/m);
    });
    const labels = await hcn('node', 'labels', spare.nodeId, 'zone=z1', 'rack-');
    ok(labels);
    expect(labels.stdout).toContain('labels zone=z1');
    await eventuallyExpect(async () => {
      const listed = await hcn('node', 'labels', spare.nodeId);
      expect(listed.stdout).toBe('zone=z1\n');
    });
  });

  it('submits a workload from a YAML file, lists, shows, stops and deletes it', async () => {
    const spec = file(
      'job.yaml',
      [
        'name: cli-job',
        'namespace: team-a',
        'command: sh',
        'args: ["-c", "echo hello"]',
        'resources:',
        '  cpuMillis: 500',
        '  memoryBytes: 268435456',
        'constraints:',
        '  nodes: [' + worker.nodeId + ']',
        '',
      ].join('\n'),
    );
    const submit = await hcn('workload', 'submit', '-f', spec);
    ok(submit);
    const [head, row] = rows(submit.stdout);
    expect(head).toEqual(['WORKLOAD ID', 'NAME', 'STATUS', 'CREATED']);
    const [id, name, status] = row;
    expect([name, status]).toEqual(['cli-job', 'starting']);
    await eventuallyExpect(async () => {
      const list = await hcn('workload', 'list', '--namespace', 'team-a');
      ok(list);
      expect(rows(list.stdout)[1].slice(0, 3)).toEqual([id, 'team-a', 'cli-job']);
    });
    const show = await hcn('workload', 'show', id);
    ok(show);
    expect(show.stdout).toMatch(/^Name: +cli-job$/m);
    expect(show.stdout).toMatch(/^Instances:$/m);
    expect(show.stdout).toContain(worker.nodeId);
    const stop = await hcn('workload', 'stop', id, '--reason', 'done with it');
    ok(stop);
    expect(stop.stdout).toMatch(new RegExp(`^workload ${id} stop requested: \\w+ \\(revision \\d+\\)\n$`));
    const del = await hcn('workload', 'delete', id);
    ok(del);
    await eventuallyExpect(async () => {
      const list = await hcn('workload', 'list', '--namespace', 'team-a', '--json');
      expect(JSON.parse(list.stdout).items.map((w: any) => w.workloadId)).not.toContain(id);
      const all = await hcn('workload', 'list', '--namespace', 'team-a', '--all', '--json');
      expect(JSON.parse(all.stdout).items.map((w: any) => [w.workloadId, w.status])).toEqual([
        [id, 'deleted'],
      ]);
    });
  });

  it("follows a workload's logs as the agent ships them (-f), until interrupted", async () => {
    const submitted = await runHcn(
      env,
      ['workload', 'submit', '-f', '-', '--json'],
      JSON.stringify({
        name: 'cli-logs',
        command: 'sh',
        args: ['-c', 'echo hi'],
        resources: { cpuMillis: 100, memoryBytes: 2 ** 26 },
        constraints: { nodes: [worker.nodeId] },
      }),
    );
    ok(submitted);
    const { workloadId } = JSON.parse(submitted.stdout);
    const shown = JSON.parse((await hcn('workload', 'show', workloadId, '--json')).stdout);
    const allocationId = shown.allocations[0].allocationId;
    let seq = 0;
    const ship = (offset: number, text: string, stream = 'stdout') =>
      h.bus.publish(AGENT_REPORTS_TOPIC, [
        {
          key: worker.nodeId,
          value: signedReport(worker, {
            kind: 'logs',
            nodeId: worker.nodeId,
            domainId: 'site-a',
            seq: ++seq,
            sentAt: new Date().toISOString(),
            workloadId,
            allocationId,
            chunks: [{ stream, offset, text }],
          }),
        },
      ]);
    await ship(0, 'line one\n');
    await eventuallyExpect(async () =>
      expect((await hcn('workload', 'logs', workloadId)).stdout).toBe('line one\n'),
    );
    const follow = startHcn(env, ['workload', 'logs', workloadId, '-f']);
    await eventuallyExpect(async () => expect(follow.stdout()).toBe('line one\n'));
    await ship(9, 'line two\nline three\n');
    await ship(0, 'oops\n', 'stderr');
    await eventuallyExpect(async () => expect(follow.stdout()).toBe('line one\nline two\nline three\n'));
    await eventuallyExpect(async () => expect(follow.stderr()).toBe('oops\n'));
    follow.child.kill('SIGINT');
    expect((await follow.done).status).toBe(0);
  });

  it('sets a quota (flags merge with the limits already set) and shows it', async () => {
    ok(await hcn('quota', 'set', 'team-q', '--cpu', '4', '--memory', '8Gi', '--workloads', '10'));
    const set = await hcn('quota', 'set', 'team-q', '--workloads', '5');
    ok(set);
    expect(set.stdout).toBe('quota team-q set: cpu=4, memory=8Gi, workloads=5\n');
    const show = await hcn('quota', 'show', 'team-q');
    ok(show);
    const table = rows(show.stdout);
    expect(table[0]).toEqual([
      'Namespace: team-q  (limits: namespace, 0 holders)'.split(/ {2,}/)[0],
      '(limits: namespace, 0 holders)',
    ]);
    expect(table[1]).toEqual(['RESOURCE', 'USED', 'LIMIT', 'LEFT']);
    expect(table.slice(2)).toContainEqual(['cpu', '0', '4', '4']);
    expect(table.slice(2)).toContainEqual(['memory', '0', '8Gi', '8Gi']);
    expect(table.slice(2)).toContainEqual(['workloads', '0', '5', '5']);
    expect(table.slice(2)).toContainEqual(['accelerators', '0', 'unlimited', '-']);
    const json = JSON.parse((await hcn('quota', 'show', 'team-q', '--json')).stdout);
    expect(json.limits).toEqual({ cpuMillis: 4000, memoryBytes: 8 * 2 ** 30, workloads: 5 });
  });

  it('defines a template from YAML and instantiates it with parameters', async () => {
    const tpl = file(
      'template.yaml',
      [
        'templateId: cli-echo',
        'description: echo a message',
        'parameters:',
        '  - name: message',
        'spec:',
        '  name: echo-${message}',
        '  command: sh',
        '  args: ["-c", "echo ${message}"]',
        '  resources: { cpuMillis: 100, memoryBytes: 67108864 }',
        '',
      ].join('\n'),
    );
    const define = await hcn('template', 'define', '-f', tpl);
    ok(define);
    expect(define.stdout).toMatch(/^template cli-echo defined/);
    await eventuallyExpect(async () => {
      const list = await hcn('template', 'list');
      expect(rows(list.stdout)).toContainEqual(['cli-echo', 'default', 'message', 'echo a message']);
    });
    const run = await hcn('template', 'instantiate', 'cli-echo', '-p', 'message=hi');
    ok(run);
    const [head, [workloadId, status, created]] = rows(run.stdout);
    expect(head).toEqual(['WORKLOAD ID', 'STATUS', 'CREATED']);
    expect([status, created]).toEqual(['starting', 'yes']);
    const shown = JSON.parse((await hcn('workload', 'show', workloadId, '--json')).stdout);
    expect(shown.spec).toMatchObject({ name: 'echo-hi', args: ['-c', 'echo hi'] });
    const missing = await hcn('template', 'instantiate', 'cli-echo');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^hcn: TEMPLATE\.[A-Z_.]+: /);
  });

  it('creates a task queue, adds a task from YAML, shows it and starts it with next', async () => {
    const create = await hcn('taskqueue', 'create', 'cli-queue', '--description', 'from the CLI');
    ok(create);
    const queueId = create.stdout.trim();
    const task = file(
      'task.yaml',
      'name: calc\ncommand: sh\nargs: ["-c", "sleep 30"]\ninstancesPerNode: 1\n',
    );
    const add = await hcn('taskqueue', 'add-task', queueId, '-f', task);
    ok(add);
    const taskId = add.stdout.trim();
    await eventuallyExpect(async () => {
      const show = await hcn('taskqueue', 'show', queueId);
      ok(show);
      expect(show.stdout).toMatch(/^Name: +cli-queue$/m);
      expect(show.stdout).toMatch(new RegExp(`^  ${taskId} +calc +pending `, 'm'));
    });
    const next = await hcn('taskqueue', 'next', queueId);
    ok(next);
    expect(next.stdout).toMatch(
      new RegExp(`^task queue ${queueId} advanced \\(status \\w+, current task ${taskId}, `),
    );
    await eventuallyExpect(async () => {
      const show = JSON.parse((await hcn('taskqueue', 'show', queueId, '--json')).stdout);
      expect(show.currentTask).toBe(taskId);
      const list = await hcn('taskqueue', 'list');
      expect(rows(list.stdout)[1].slice(0, 2)).toEqual([queueId, 'cli-queue']);
    });
  });

  it('defines a domain and shows it', async () => {
    ok(await hcn('domain', 'define', 'region-x', '--region', 'eu', '--policy', 'spread', '-l', 'tier=gold'));
    const show = await hcn('domain', 'show', 'region-x');
    ok(show);
    expect(show.stdout).toMatch(/^Region: +eu$/m);
    expect(show.stdout).toMatch(/^Policy: +spread$/m);
    expect(show.stdout).toMatch(/^Labels: +tier=gold$/m);
  });

  it("prints an API error as 'code: message' on one line and exits 1", async () => {
    const missing = await hcn('node', 'show', '6d2c1f0e-6d2c-4f0e-8d2c-1f0e6d2c1f0e');
    expect([missing.status, missing.stdout]).toEqual([1, '']);
    expect(missing.stderr).toMatch(/^hcn: NODE\.NOT_FOUND: .+\n$/);
    const unauthorized = await runHcn({ HCN_ADDR: h.hub.url }, ['node', 'list']);
    expect(unauthorized.status).toBe(1);
    expect(unauthorized.stderr).toMatch(/^hcn: AUTH\.[A-Z_]+: .+\n$/);
  });

  it('refuses an unknown option or command with exit 2, and says so', async () => {
    const option = await hcn('node', 'list', '--bogus');
    expect([option.status, option.stdout]).toEqual([2, '']);
    expect(option.stderr).toContain("hcn: unknown option '--bogus'");
    const value = await hcn('quota', 'set', 'team-q', '--memory', 'lots');
    expect(value.status).toBe(2);
    expect(value.stderr).toContain("option '--memory <bytes>' argument 'lots' is invalid");
    const unreadable = await hcn('workload', 'submit', '-f', join(dir, 'nowhere.yaml'));
    expect([unreadable.status, unreadable.stderr]).toEqual([2, expect.stringContaining('ENOENT')]);
  });

  it('exits 3 with one line when the hub cannot be reached', async () => {
    const addr = `http://127.0.0.1:${await closedPort()}`;
    const run = await runHcn({ HCN_ADDR: addr, HCN_TOKEN: 'x' }, ['workload', 'list']);
    expect([run.status, run.stdout]).toEqual([3, '']);
    expect(run.stderr).toBe(`hcn: CLI.HUB_UNREACHABLE: cannot reach the hub at ${addr} (ECONNREFUSED)\n`);
  });
});
