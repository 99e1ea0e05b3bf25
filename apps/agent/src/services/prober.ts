import type { Probe } from '@hcn/contracts';
import type { CheckOutcome } from './probe-check';

/** Whether a probe passes now, after its thresholds. */
export type ProbeVerdict = 'passing' | 'failing';
/** A probe's verdict before its first turn: as assumed, or `unknown` (the first verdict reached is told). */
export type InitialVerdict = ProbeVerdict | 'unknown';

/**
 * Runs one probe of one allocation: the first check after the initial delay, the next `intervalSeconds` after the
 * previous one ended (checks never overlap). `successThreshold` passes in a row turn a failing probe passing,
 * `failureThreshold` failures in a row turn a passing probe failing (an `unknown` one turns either way); each turn
 * is told once, with the last check's detail (and how many failed in a row).
 */
export class Prober {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private successes = 0;
  private failures = 0;

  constructor(
    private readonly probe: Probe,
    private readonly check: () => Promise<CheckOutcome>,
    private verdict: InitialVerdict,
    private readonly onTurn: (verdict: ProbeVerdict, detail: string) => void,
  ) {}

  /** Starts checking (after the initial delay). */
  start(): void {
    this.schedule(this.probe.initialDelaySeconds * 1000);
  }

  /** Stops checking; a check in flight is not told. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** The verdict now. */
  get current(): InitialVerdict {
    return this.verdict;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const outcome = await this.check();
    if (this.stopped) return;
    if (outcome.ok) {
      this.successes += 1;
      this.failures = 0;
      if (this.verdict !== 'passing' && this.successes >= this.probe.successThreshold)
        this.turn('passing', outcome.detail);
    } else {
      this.failures += 1;
      this.successes = 0;
      if (this.verdict !== 'failing' && this.failures >= this.probe.failureThreshold)
        this.turn('failing', `${this.failures} check(s) failed in a row, the last: ${outcome.detail}`);
    }
    this.schedule(this.probe.intervalSeconds * 1000);
  }

  private turn(verdict: ProbeVerdict, detail: string): void {
    this.verdict = verdict;
    this.onTurn(verdict, detail);
  }
}
