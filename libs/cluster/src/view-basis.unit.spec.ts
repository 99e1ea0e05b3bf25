import { formatOffsetRuns, lastOffsetOfRuns, offsetInRuns, parseOffsetRuns } from '@hcn/contracts';
import { RecordedBasis, ViewBasis } from './view-basis';

const inOffsetRuns = (runs: string, offset: number) => offsetInRuns(parseOffsetRuns(runs), offset);

const at = (commit: number, prepare = 0) => ({ commit: BigInt(commit), prepare: BigInt(prepare) });

describe('view basis (what a decision records of its view)', () => {
  it('writes offsets as runs and reads them back', () => {
    expect(formatOffsetRuns([0, 5, 6, 8, 9, 10])).toBe('0,5-6,8-10');
    expect([0, 4, 5, 7, 10, 11].map((o) => inOffsetRuns('0,5-6,8-10', o))).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(lastOffsetOfRuns('0,5-6,8-10')).toBe(10);
    expect(parseOffsetRuns('0,5-6,8-10')).toEqual([
      [0, 0],
      [5, 6],
      [8, 10],
    ]);
    expect(parseOffsetRuns(undefined)).toEqual([]);
    expect(inOffsetRuns('3', 3)).toBe(true);
    expect([-1, 1, 12].map((o) => inOffsetRuns('0,5-6,8-10', o))).toEqual([false, false, false]);
  });

  it('records the delivered position and the own appends ahead of it, partly applied commits by node', () => {
    const basis = new ViewBasis();
    basis.delivered(at(100, 7));
    basis.appended('a', at(103), true);
    basis.appended('b', at(104), true);
    basis.appended('c', at(104), false); // the view was behind on c: that commit is only partly applied
    basis.appended('d', at(105), true);
    basis.appended('e', at(99), true); // below the delivered commit: the log brought it already
    const recorded = basis.record();
    expect(recorded).toEqual({ at: '100/7', ahead: '3,5', partial: [[4, 'b']] });
    const parsed = new RecordedBasis(recorded);
    expect(parsed.includes(at(100, 7))).toBe(true);
    expect(parsed.includes(at(99, 70))).toBe(true);
    expect(parsed.includes(at(100, 8))).toBe(false);
    expect(parsed.includes(at(103, 9))).toBe(true);
    expect(parsed.includes(at(104, 1), 'b')).toBe(true);
    expect(parsed.includes(at(104, 2), 'c')).toBe(false);
    expect(parsed.includes(at(104, 2))).toBe(false);
    expect(parsed.includes(at(105, 0), 'd')).toBe(true);
    expect(parsed.includes(at(106, 0), 'd')).toBe(false);
    expect(parsed.end).toBe(105n);
    expect(new RecordedBasis({ at: '7/2' }).end).toBe(7n);
    expect(new RecordedBasis({ at: '7/2', partial: [[4, 'x']] }).end).toBe(11n);
    basis.delivered(at(104, 3)); // the log passed 103: no longer ahead
    expect(basis.record()).toEqual({ at: '104/3', ahead: '1', partial: [[0, 'b']] });
  });
});
