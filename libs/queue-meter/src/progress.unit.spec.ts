import { QueueProgress, QueueSample, ProgressOptions, queueProgress, samplesInWindow } from './progress';

const s = (atSeconds: number, inputLength: number, outputLength: number): QueueSample => ({
  at: 1_700_000_000_000 + atSeconds * 1000,
  inputLength,
  outputLength,
});

describe('queueProgress', () => {
  const cases: [string, QueueSample[], ProgressOptions, QueueProgress][] = [
    [
      'no samples: nothing known',
      [],
      {},
      { inputLeft: 0, outputDone: 0, ratePerSecond: 0, etaSeconds: null, fractionDone: null },
    ],
    [
      'no samples, initial input known: all of it left',
      [],
      { initialInputLength: 100 },
      { inputLeft: 100, outputDone: 0, ratePerSecond: 0, etaSeconds: null, fractionDone: 0 },
    ],
    [
      'one sample: lengths, no rate yet',
      [s(0, 80, 20)],
      { initialInputLength: 100 },
      { inputLeft: 80, outputDone: 20, ratePerSecond: 0, etaSeconds: null, fractionDone: 0.2 },
    ],
    [
      'steady drain: 10 items/s, 50 left -> 5 s',
      [s(0, 100, 0), s(1, 90, 10), s(2, 80, 20), s(5, 50, 50)],
      { initialInputLength: 100 },
      { inputLeft: 50, outputDone: 50, ratePerSecond: 10, etaSeconds: 5, fractionDone: 0.5 },
    ],
    [
      'samples out of order are sorted',
      [s(5, 50, 50), s(0, 100, 0), s(2, 80, 20)],
      {},
      { inputLeft: 50, outputDone: 50, ratePerSecond: 10, etaSeconds: 5, fractionDone: null },
    ],
    [
      'input pushed meanwhile: output growth counts (30 in 3 s)',
      [s(0, 100, 0), s(3, 120, 30)],
      {},
      { inputLeft: 120, outputDone: 30, ratePerSecond: 10, etaSeconds: 12, fractionDone: null },
    ],
    [
      'output drained by a consumer: input drop counts (40 in 4 s)',
      [s(0, 100, 50), s(4, 60, 0)],
      {},
      { inputLeft: 60, outputDone: 0, ratePerSecond: 10, etaSeconds: 6, fractionDone: null },
    ],
    [
      'initial output subtracted from output done',
      [s(0, 10, 5), s(1, 0, 15)],
      { initialOutputLength: 5, initialInputLength: 10 },
      { inputLeft: 0, outputDone: 10, ratePerSecond: 10, etaSeconds: 0, fractionDone: 1 },
    ],
    [
      'stalled: rate 0, eta unknown',
      [s(0, 40, 60), s(10, 40, 60)],
      { initialInputLength: 100 },
      { inputLeft: 40, outputDone: 60, ratePerSecond: 0, etaSeconds: null, fractionDone: 0.6 },
    ],
    [
      'input empty: eta 0 even when stalled',
      [s(0, 0, 100), s(10, 0, 100)],
      {},
      { inputLeft: 0, outputDone: 100, ratePerSecond: 0, etaSeconds: 0, fractionDone: null },
    ],
    [
      'only the window counts: an early burst is forgotten (anchor at 10 s)',
      [s(0, 1000, 0), s(1, 100, 900), s(10, 100, 900), s(20, 90, 910), s(30, 80, 920)],
      { windowMs: 20_000 },
      { inputLeft: 80, outputDone: 920, ratePerSecond: 1, etaSeconds: 80, fractionDone: null },
    ],
    [
      'eta exact for a rate that is no finite decimal (1 per 3 s, 9 left)',
      [s(0, 10, 0), s(3, 9, 1)],
      {},
      { inputLeft: 9, outputDone: 1, ratePerSecond: 1 / 3, etaSeconds: 27, fractionDone: null },
    ],
    [
      'eta rounds up (0.4 per s, 9 left -> 22.5 -> 23)',
      [s(0, 11, 0), s(5, 9, 2)],
      {},
      { inputLeft: 9, outputDone: 2, ratePerSecond: 0.4, etaSeconds: 23, fractionDone: null },
    ],
    [
      'more input than at the start: fraction done floors at 0',
      [s(0, 150, 0)],
      { initialInputLength: 100 },
      { inputLeft: 150, outputDone: 0, ratePerSecond: 0, etaSeconds: null, fractionDone: 0 },
    ],
    [
      'initial input 0: done',
      [s(0, 0, 0)],
      { initialInputLength: 0 },
      { inputLeft: 0, outputDone: 0, ratePerSecond: 0, etaSeconds: 0, fractionDone: 1 },
    ],
    [
      'two samples at the same instant: no span, no rate',
      [s(1, 10, 0), s(1, 5, 5)],
      {},
      { inputLeft: 5, outputDone: 5, ratePerSecond: 0, etaSeconds: null, fractionDone: null },
    ],
  ];

  it.each(cases)('%s', (_name, samples, options, expected) => {
    const got = queueProgress(samples, options);
    expect({ ...got, ratePerSecond: Number(got.ratePerSecond.toFixed(9)) }).toEqual({
      ...expected,
      ratePerSecond: Number(expected.ratePerSecond.toFixed(9)),
    });
  });
});

describe('samplesInWindow', () => {
  const history = [s(0, 9, 0), s(5, 8, 1), s(10, 7, 2), s(15, 6, 3), s(20, 5, 4)];
  const cases: [string, QueueSample[], number, number[]][] = [
    ['empty', [], 10_000, []],
    ['keeps the window and one anchor before it', history, 12_000, [5, 10, 15, 20]],
    ['a sample exactly at the edge is its own anchor', history, 10_000, [10, 15, 20]],
    ['window wider than the history keeps all', history, 60_000, [0, 5, 10, 15, 20]],
    ['unsorted input comes back sorted', [history[3], history[0], history[4]], 5_000, [15, 20]],
    ['the anchor may be far back', [history[3], history[0], history[4]], 6_000, [0, 15, 20]],
  ];
  it.each(cases)('%s', (_name, samples, windowMs, seconds) => {
    expect(samplesInWindow(samples, windowMs).map((x) => (x.at - s(0, 0, 0).at) / 1000)).toEqual(seconds);
  });
});
