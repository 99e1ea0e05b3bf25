import type { Command } from 'commander';
import { DEFAULT_ADDR, Fetch, HubClient } from './hub-client';
import { Column, renderFields, renderTable } from './table';

/** What the CLI touches outside itself; main passes the process's, specs their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: NodeJS.ProcessEnv;
  /** Milliseconds since the epoch (ages in tables). */
  readonly now: () => number;
  readonly fetch?: Fetch;
  /** Standard input as text (`-f -`). */
  readonly stdin?: () => string;
  /** Waits between polls (`logs -f`). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Options every command takes (the program's): where the hub is, the token, the wait, JSON output. */
export interface GlobalOptions {
  addr?: string;
  token?: string;
  timeout?: number;
  json?: boolean;
}

/** One run of the CLI: its I/O, the exit status the command ended with, and output helpers. */
export class CliContext {
  /** Exit status set by the command (0 unless it says otherwise). */
  status = 0;

  constructor(readonly io: CliIo) {}

  /** Writes to standard output. */
  out(text: string): void {
    this.io.stdout.write(text);
  }

  /** Writes to standard error. */
  err(text: string): void {
    this.io.stderr.write(text);
  }

  /** The global options as seen from a command. */
  globals(cmd: Command): GlobalOptions {
    return cmd.optsWithGlobals<GlobalOptions>();
  }

  /** A client of the hub named by `--addr`/`HCN_ADDR` with `--token`/`HCN_TOKEN`. */
  hub(cmd: Command): HubClient {
    const g = this.globals(cmd);
    const env = this.io.env;
    return new HubClient(
      {
        addr: g.addr ?? (env.HCN_ADDR || DEFAULT_ADDR),
        token: g.token ?? (env.HCN_TOKEN || undefined),
        timeoutMs: (g.timeout ?? 30) * 1000,
      },
      this.io.fetch,
    );
  }

  /** True when `--json` was given. */
  json(cmd: Command): boolean {
    return !!this.globals(cmd).json;
  }

  /** Prints the raw answer with `--json`, else what `render` makes of it. */
  print(cmd: Command, body: unknown, render: () => string): void {
    this.out(this.json(cmd) ? `${JSON.stringify(body, null, 2)}\n` : render());
  }

  /** A list: the raw answer with `--json`, else a table (or `No <what>.` on stderr when empty). */
  table<T>(
    cmd: Command,
    body: unknown,
    rows: readonly T[],
    columns: readonly Column<T>[],
    what: string,
  ): void {
    if (this.json(cmd)) return this.print(cmd, body, () => '');
    if (rows.length === 0) this.err(`No ${what}.\n`);
    else this.out(renderTable(columns, rows));
    const more = moreThanShown(body, rows.length);
    if (more) this.err(`${more}\n`);
  }

  /** One resource: the raw answer with `--json`, else `Label: value` lines and any sections after them. */
  describe(
    cmd: Command,
    body: unknown,
    fields: ReadonlyArray<readonly [string, unknown]>,
    ...sections: string[]
  ) {
    this.print(cmd, body, () => [renderFields(fields), ...sections.filter(Boolean)].join('\n'));
  }
}

/**
 * A note for stderr when a paged answer has more after the rows shown (a `nextCursor`); undefined when the table is
 * the last page.
 */
export function moreThanShown(body: unknown, shown: number): string | undefined {
  const b = (body ?? {}) as { total?: unknown; nextCursor?: unknown };
  if (typeof b.nextCursor === 'string' && b.nextCursor)
    return `(more after these ${shown}: --cursor ${b.nextCursor}${typeof b.total === 'number' ? `; ${b.total} in all` : ''})`;
  return undefined;
}

/** The items of a list answer: a bare array, or `{items}` (and `data` for a paged envelope). */
export function itemsOf<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  const b = body as { items?: unknown; data?: unknown } | null;
  if (Array.isArray(b?.items)) return b.items as T[];
  if (Array.isArray(b?.data)) return b.data as T[];
  return [];
}

/** A titled section under a describe view (`Devices:` and a table), or '' when there is nothing in it. */
export function section<T>(title: string, columns: readonly Column<T>[], rows: readonly T[]): string {
  if (rows.length === 0) return '';
  const table = renderTable(columns, rows)
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
  return `${title}:\n${table}`;
}
