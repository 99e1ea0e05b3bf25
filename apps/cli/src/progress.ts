import type { ScanProgress } from '@hcn/audit';
import { progressBar } from '@hcn/platform';

/**
 * A progress bar on stderr for long reads of the log: redrawn in place on a terminal, a line per tenth
 * otherwise; silent with `quiet`. Totals are the store's estimate of the whole log, so filtered reads end early.
 */
export class ProgressBar {
  private lastTenth = -1;
  private readonly started = Date.now();

  constructor(
    private readonly label: string,
    private readonly quiet = false,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /** Reports progress; call with `done` once at the end. */
  update(p: ScanProgress): void {
    if (this.quiet) return;
    const fraction = p.done ? 1 : p.total ? Math.min(0.99, p.read / p.total) : 0;
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const line = `${this.label} [${progressBar(fraction)}] ${Math.round(fraction * 100)}% ${p.read} events ${seconds}s`;
    if (this.out.isTTY) {
      this.out.write(`\r${line}${p.done ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth > this.lastTenth || p.done) this.out.write(`${line}\n`);
    this.lastTenth = tenth;
  }
}
