/** One reading of a task's queues: when (ms since the epoch) and their lengths. */
export interface QueueSample {
  readonly at: number;
  readonly inputLength: number;
  readonly outputLength: number;
}

/** What to compute progress against. */
export interface ProgressOptions {
  /** Width of the sliding window the rate is measured over; default 60 s. */
  readonly windowMs?: number;
  /** Input length when the task started, when known: gives `fractionDone`. */
  readonly initialInputLength?: number;
  /** Output length when the task started (items that were there before); default 0. */
  readonly initialOutputLength?: number;
}

/** A task's progress as a dashboard shows it. */
export interface QueueProgress {
  /** Items still in the input queue (latest sample). */
  readonly inputLeft: number;
  /** Items the task added to the output queue (latest sample, less the initial output length). */
  readonly outputDone: number;
  /** Items processed per second over the window (0 without two samples in it). */
  readonly ratePerSecond: number;
  /** Seconds until the input is empty at that rate; 0 when it is empty; null without samples or when the rate is 0. */
  readonly etaSeconds: number | null;
  /** Share of the initial input consumed (0..1); null when the initial input length is unknown. */
  readonly fractionDone: number | null;
}

/** Default width of the rate's sliding window. */
export const DEFAULT_PROGRESS_WINDOW_MS = 60_000;

const byTime = (a: QueueSample, b: QueueSample): number => a.at - b.at;

/**
 * The samples the window needs: those within `windowMs` of the latest, plus the latest one before them (the
 * window's anchor). A sampler keeps its history bounded with it.
 */
export function samplesInWindow(
  samples: readonly QueueSample[],
  windowMs = DEFAULT_PROGRESS_WINDOW_MS,
): QueueSample[] {
  const sorted = [...samples].sort(byTime);
  if (sorted.length === 0) return sorted;
  const from = sorted[sorted.length - 1].at - windowMs;
  let first = sorted.findIndex((s) => s.at >= from);
  if (first > 0 && sorted[first].at > from) first -= 1;
  return sorted.slice(Math.max(0, first));
}

/**
 * Progress from queue samples. Between two consecutive samples the work done is the larger of the input's drop
 * and the output's growth, so neither new input pushed meanwhile nor a consumer draining the output hides it;
 * the rate is that work over the window's span.
 */
export function queueProgress(samples: readonly QueueSample[], options: ProgressOptions = {}): QueueProgress {
  const windowMs = options.windowMs ?? DEFAULT_PROGRESS_WINDOW_MS;
  const initialOutput = options.initialOutputLength ?? 0;
  const initialInput = options.initialInputLength;
  const window = samplesInWindow(samples, windowMs);
  const latest = window[window.length - 1];
  const inputLeft = latest ? Math.max(0, latest.inputLength) : (initialInput ?? 0);
  const outputDone = latest ? Math.max(0, latest.outputLength - initialOutput) : 0;
  let work = 0;
  for (let i = 1; i < window.length; i++) {
    const drained = window[i - 1].inputLength - window[i].inputLength;
    const produced = window[i].outputLength - window[i - 1].outputLength;
    work += Math.max(0, drained, produced);
  }
  const spanMs = window.length > 1 ? latest.at - window[0].at : 0;
  const ratePerSecond = spanMs > 0 ? (work * 1000) / spanMs : 0;
  // from the integers, not the rounded rate: 9 left at 1 per 3 s is 27 s, not 28
  const etaSeconds = !latest
    ? null
    : inputLeft === 0
      ? 0
      : ratePerSecond > 0
        ? Math.ceil((inputLeft * spanMs) / (work * 1000))
        : null;
  const fractionDone =
    initialInput === undefined
      ? null
      : initialInput <= 0
        ? 1
        : Math.min(1, Math.max(0, (initialInput - inputLeft) / initialInput));
  return { inputLeft, outputDone, ratePerSecond, etaSeconds, fractionDone };
}
