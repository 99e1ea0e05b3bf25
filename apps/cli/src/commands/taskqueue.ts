import { Command } from 'commander';
import { CliContext, itemsOf, section } from '../context';
import { seg } from '../hub-client';
import { readDocument } from '../spec-file';

/** `GET /v1/taskqueues` items. */
interface QueueItem {
  queueId: string;
  name: string;
  namespace: string;
  status: string;
  currentTask: { taskId: string; name: string } | null;
  tasks: Record<string, number>;
  createdAt: string;
}

/** A task's progress (null until sampled; `unavailable` says why it cannot be). */
interface Progress {
  inputLeft?: number;
  outputDone?: number;
  ratePerSecond?: number;
  etaSeconds?: number | null;
  unavailable?: string;
}

/** `GET /v1/taskqueues/:id`. */
interface QueueView {
  queueId: string;
  name: string;
  namespace: string;
  description: string;
  status: string;
  currentTask: string | null;
  tasks: Array<{
    taskId: string;
    name: string;
    status: string;
    round: number;
    nodes: number;
    reason: string | null;
    instances?: Record<string, number>;
    progress: Progress | null;
  }>;
  problem: unknown;
  createdAt: string;
  updatedAt: string;
}

/** What a queue command answers. */
interface QueueResult {
  queueId: string;
  status: string;
  current: string | null;
  revision: number;
  taskId?: string;
}

/** `running=4,exited=1`, `-` when none. */
export function counts(record: Record<string, number> | undefined): string {
  const entries = Object.entries(record ?? {}).filter(([, n]) => n > 0);
  return entries.length ? entries.map(([k, n]) => `${k}=${n}`).join(',') : '-';
}

/** `120 left, 80 done, 2.5/s, eta 48s`, or why there is no progress. */
export function progressText(p: Progress | null | undefined): string {
  if (!p) return '-';
  if (p.unavailable) return p.unavailable;
  const parts = [`${p.inputLeft ?? 0} left`, `${p.outputDone ?? 0} done`];
  if (p.ratePerSecond) parts.push(`${Math.round(p.ratePerSecond * 10) / 10}/s`);
  if (p.etaSeconds !== null && p.etaSeconds !== undefined) parts.push(`eta ${Math.round(p.etaSeconds)}s`);
  return parts.join(', ');
}

function printResult(ctx: CliContext, cmd: Command, body: unknown, what: string): void {
  const r = body as QueueResult;
  ctx.print(
    cmd,
    body,
    () =>
      `task queue ${r.queueId} ${what} (status ${r.status}, current task ${r.current ?? '-'}, revision ${r.revision})\n`,
  );
}

/** `hcn taskqueue list|show|create|add-task|next|pause|resume|delete`. */
export function taskQueueCommands(ctx: CliContext): Command {
  const tq = new Command('taskqueue')
    .alias('tq')
    .description('batch task queues (GridCore): list, show, create, add-task, next, pause, resume, delete');

  tq.command('list')
    .alias('ls')
    .description('task queues of the namespaces the token may see (GET /v1/taskqueues)')
    .action(async (_opts, cmd: Command) => {
      const body = await ctx.hub(cmd).getAll('/v1/taskqueues');
      ctx.table<QueueItem>(
        cmd,
        body,
        itemsOf(body),
        [
          { header: 'queue id', value: (q) => q.queueId },
          { header: 'name', value: (q) => q.name },
          { header: 'namespace', value: (q) => q.namespace },
          { header: 'status', value: (q) => q.status },
          { header: 'running task', value: (q) => q.currentTask?.name },
          { header: 'tasks', value: (q) => counts(q.tasks) },
        ],
        'task queues',
      );
    });

  tq.command('show')
    .alias('get')
    .description(
      'one queue: its tasks in order, the running one with instances and progress (GET /v1/taskqueues/:id)',
    )
    .argument('<queueId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const q = await ctx.hub(cmd).get<QueueView>(`/v1/taskqueues/${seg(id)}`);
      ctx.describe(
        cmd,
        q,
        [
          ['Queue', q.queueId],
          ['Name', q.name],
          ['Namespace', q.namespace],
          ['Description', q.description],
          ['Status', q.status],
          ['Running task', q.currentTask],
          ['Problem', q.problem ? JSON.stringify(q.problem) : null],
          ['Created', q.createdAt],
          ['Updated', q.updatedAt],
        ],
        section(
          'Tasks',
          [
            { header: 'task id', value: (t) => t.taskId },
            { header: 'name', value: (t) => t.name },
            { header: 'status', value: (t) => t.status },
            { header: 'round', value: (t) => t.round, align: 'right' },
            { header: 'nodes', value: (t) => t.nodes, align: 'right' },
            { header: 'instances', value: (t) => (t.instances ? counts(t.instances) : '-') },
            { header: 'progress', value: (t) => progressText(t.progress) },
            { header: 'reason', value: (t) => t.reason },
          ],
          q.tasks,
        ),
      );
    });

  tq.command('create')
    .description('create a queue (POST /v1/taskqueues)')
    .argument('[name]', 'queue name (or name: in the file)')
    .option('-n, --namespace <ns>', 'namespace (default: default)')
    .option('--description <text>', 'description')
    .option('-f, --file <path>', 'definition file ({name, namespace, description})')
    .action(async (name: string | undefined, opts, cmd: Command) => {
      const body: Record<string, unknown> = opts.file ? readDocument(opts.file, ctx.io.stdin) : {};
      if (name !== undefined) body.name = name;
      if (opts.namespace !== undefined) body.namespace = opts.namespace;
      if (opts.description !== undefined) body.description = opts.description;
      const answer = await ctx.hub(cmd).request({ method: 'POST', path: '/v1/taskqueues', body });
      const r = answer.body as QueueResult;
      ctx.print(cmd, r, () => `${r.queueId}\n`);
    });

  tq.command('add-task')
    .description(
      "add a task at the end of the queue from a YAML/JSON file (POST /v1/taskqueues/:id/tasks); 'next' starts it",
    )
    .argument('<queueId>')
    .requiredOption(
      '-f, --file <path>',
      'task spec file ({name, image | command, args, instancesPerCpu, ...}), - for stdin',
    )
    .action(async (id: string, opts, cmd: Command) => {
      const spec = readDocument(opts.file, ctx.io.stdin);
      const answer = await ctx
        .hub(cmd)
        .request({ method: 'POST', path: `/v1/taskqueues/${seg(id)}/tasks`, body: spec });
      const r = answer.body as QueueResult;
      ctx.print(cmd, r, () => `${r.taskId}\n`);
    });

  for (const [verb, done, summary, takesReason] of [
    ['next', 'advanced', 'complete the running task (its instances stop) and start the next', true],
    ['pause', 'paused', "pause: the running task's instances stop, nothing starts or advances", true],
    ['resume', 'resumed', 'resume: the running task starts again on every eligible node', false],
  ] as const) {
    const c = tq
      .command(verb)
      .description(`${summary} (POST /v1/taskqueues/:id/${verb})`)
      .argument('<queueId>');
    if (takesReason) c.option('--reason <text>', 'recorded with the event');
    c.action(async (id: string, opts, cmd: Command) => {
      const answer = await ctx.hub(cmd).request({
        method: 'POST',
        path: `/v1/taskqueues/${seg(id)}/${verb}`,
        body: takesReason && opts.reason ? { reason: opts.reason } : {},
      });
      printResult(ctx, cmd, answer.body, done);
    });
  }

  tq.command('delete')
    .alias('rm')
    .description('delete a queue; its history stays in the log (DELETE /v1/taskqueues/:id)')
    .argument('<queueId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const answer = await ctx.hub(cmd).request({ method: 'DELETE', path: `/v1/taskqueues/${seg(id)}` });
      printResult(ctx, cmd, answer.body, 'deleted');
    });

  tq.command('task')
    .description(
      "one task: its current round's instances per node and progress (GET /v1/taskqueues/:id/tasks/:taskId)",
    )
    .argument('<queueId>')
    .argument('<taskId>')
    .action(async (id: string, taskId: string, _opts, cmd: Command) => {
      const t = await ctx
        .hub(cmd)
        .get<QueueView['tasks'][number] & { nodes: Array<{ nodeId: string; instances: string[] }> }>(
          `/v1/taskqueues/${seg(id)}/tasks/${seg(taskId)}`,
        );
      ctx.describe(
        cmd,
        t,
        [
          ['Task', t.taskId],
          ['Name', t.name],
          ['Status', t.status],
          ['Round', t.round],
          ['Instances', counts(t.instances)],
          ['Progress', progressText(t.progress)],
          ['Reason', t.reason],
        ],
        section(
          'Nodes',
          [
            { header: 'node', value: (n) => n.nodeId },
            { header: 'instances', value: (n) => n.instances.length, align: 'right' },
            { header: 'statuses', value: (n) => n.instances.join(',') },
          ],
          Array.isArray(t.nodes) ? t.nodes : [],
        ),
      );
    });

  for (const [verb, summary] of [
    ['cancel-task', 'cancel a pending or running task (a running one stops; the queue waits for next)'],
    ['retry-task', 'retry a failed or cancelled task: pending again, started at once when nothing runs'],
  ] as const) {
    tq.command(verb)
      .description(`${summary} (POST /v1/taskqueues/:id/tasks/:taskId/${verb.split('-')[0]})`)
      .argument('<queueId>')
      .argument('<taskId>')
      .action(async (id: string, taskId: string, _opts, cmd: Command) => {
        const answer = await ctx.hub(cmd).request({
          method: 'POST',
          path: `/v1/taskqueues/${seg(id)}/tasks/${seg(taskId)}/${verb.split('-')[0]}`,
          body: {},
        });
        printResult(ctx, cmd, answer.body, verb === 'cancel-task' ? 'task cancelled' : 'task retried');
      });
  }

  return tq;
}
