import { ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** Characters of an app's output kept (the latest). */
export const OUTPUT_KEPT = 200_000;

/** An app started as its own OS process, with its output kept for failure messages. */
export class AppProcess {
  private child: ChildProcess | undefined;
  output = '';
  exitCode: number | null | undefined;

  constructor(
    readonly name: string,
    private readonly entry: string,
    private readonly env: Record<string, string>,
    /** Run the compiled build (`npm run build` -> dist/) instead of the TypeScript sources. */
    private readonly compiled = false,
    /** Extra options for node itself (e.g. `--cpu-prof`). */
    private readonly nodeArgs: readonly string[] = [],
  ) {}

  /** Process id while running. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts (or restarts) the process. */
  start(): this {
    this.exitCode = undefined;
    const args = this.compiled
      ? [...this.nodeArgs, '-r', './scripts/register-dist.js', `dist/${this.entry.replace(/\.ts$/, '.js')}`]
      : [...this.nodeArgs, '-r', './scripts/register-ts.js', this.entry];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const copyTo = process.env.HCN_APP_OUTPUT_DIR; // whole output of each app, for investigations
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString()).slice(-OUTPUT_KEPT); // JSON log lines are long
      if (copyTo) appendFileSync(join(copyTo, `${this.name}.log`), chunk);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code) => (this.exitCode = code));
    this.child = child;
    return this;
  }

  /** Sends a signal; resolves when the process has exited. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || this.exitCode !== undefined) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  /** Resolves with the exit code once the process ends by itself. */
  exited(): Promise<number | null> {
    const child = this.child;
    if (!child || this.exitCode !== undefined) return Promise.resolve(this.exitCode ?? null);
    return new Promise((r) => child.once('exit', (code) => r(code)));
  }
}
