import type { Command } from 'commander';
import type { CliContext } from '../context';
import type { HubClient } from '../hub-client';
import { seg } from '../hub-client';

/** `GET /v1/workloads/:id/logs`: the last lines of each allocation, per stream. */
interface LogsAnswer {
  workloadId: string;
  allocations: Array<{ allocationId: string; lines: Array<{ stream: string; line: string }> }>;
}

/** Statuses after which a workload writes no more output (`logs -f` ends there). */
const ENDED = new Set(['completed', 'failed', 'lost', 'stopped', 'deleted']);

/** The most lines one poll asks for (the hub's limit). */
export const FOLLOW_WINDOW = 10000;

/**
 * The lines of `current` that `previous` had not shown. Both are the last lines of one growing stream, at most
 * `window` of them: while the stream is shorter than the window the new lines are the ones past the old count;
 * after that, the new window is aligned on the longest overlap with the end of the old one.
 */
export function newLines(previous: readonly string[], current: readonly string[], window: number): string[] {
  if (current.length < window) return current.slice(Math.min(previous.length, current.length));
  for (let overlap = Math.min(previous.length, current.length); overlap > 0; overlap--) {
    let same = true;
    for (let i = 0; i < overlap && same; i++) same = previous[previous.length - overlap + i] === current[i];
    if (same) return current.slice(overlap);
  }
  return [...current];
}

/**
 * Prints each poll's new lines: stdout lines to stdout, stderr lines to stderr, prefixed with the allocation when
 * there are several; with `json`, one JSON object per line (`{allocationId, stream, line}`) on stdout.
 */
class LogPrinter {
  private readonly seen = new Map<string, string[]>();

  constructor(
    private readonly ctx: CliContext,
    private readonly json: boolean,
  ) {}

  /** Prints what is new in this answer, at most the last `tail` lines of each stream. */
  print(answer: LogsAnswer, tail = Infinity): void {
    const several = answer.allocations.length > 1;
    for (const allocation of answer.allocations) {
      const byStream = new Map<string, string[]>();
      for (const l of allocation.lines) byStream.set(l.stream, [...(byStream.get(l.stream) ?? []), l.line]);
      for (const [stream, lines] of byStream) {
        const key = `${allocation.allocationId}/${stream}`;
        const fresh = newLines(this.seen.get(key) ?? [], lines, FOLLOW_WINDOW);
        this.seen.set(key, lines);
        const shown = fresh.slice(Math.max(0, fresh.length - tail));
        if (this.json) {
          const { allocationId } = allocation;
          this.ctx.out(shown.map((line) => `${JSON.stringify({ allocationId, stream, line })}\n`).join(''));
          continue;
        }
        const prefix = several ? `[${allocation.allocationId.slice(0, 8)}] ` : '';
        const text = shown.map((line) => `${prefix}${line}\n`).join('');
        if (stream === 'stderr') this.ctx.err(text);
        else this.ctx.out(text);
      }
    }
  }
}

/** Options of `workload logs`. */
export interface LogsOptions {
  follow?: boolean;
  lines?: number;
  stream?: string;
  allocation?: string;
}

/**
 * `hcn workload logs <id> [-f]`: the last lines; with `-f`, then a poll every second until the workload has ended
 * (one more poll after that) or the command is interrupted. `--json` without `-f` prints the hub's answer; with
 * `-f`, one JSON object per line.
 */
export async function workloadLogs(
  ctx: CliContext,
  cmd: Command,
  id: string,
  opts: LogsOptions,
): Promise<void> {
  const hub: HubClient = ctx.hub(cmd);
  const path = `/v1/workloads/${seg(id)}/logs`;
  const query = { stream: opts.stream, allocation: opts.allocation };
  const tail = opts.lines ?? 100;
  if (!opts.follow) {
    const answer = await hub.get<LogsAnswer>(path, { ...query, lines: tail });
    if (ctx.json(cmd)) return ctx.print(cmd, answer, () => '');
    return new LogPrinter(ctx, false).print(answer);
  }
  const printer = new LogPrinter(ctx, ctx.json(cmd));
  // the whole window is read from the first poll on, so later polls find where they continue; only the last
  // `tail` lines of it are shown
  printer.print(await hub.get<LogsAnswer>(path, { ...query, lines: FOLLOW_WINDOW }), tail);
  const sleep = ctx.io.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let interrupted = false;
  const onSigint = () => (interrupted = true);
  process.once('SIGINT', onSigint);
  try {
    for (let ended = false; !interrupted;) {
      await sleep(1000);
      if (interrupted) break;
      const { status } = await hub.get<{ status: string }>(`/v1/workloads/${seg(id)}`);
      printer.print(await hub.get<LogsAnswer>(path, { ...query, lines: FOLLOW_WINDOW }));
      if (ended) break;
      ended = ENDED.has(status);
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
