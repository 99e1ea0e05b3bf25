import { formatOffsetRuns, inOffsetRuns, lastOffsetOfRuns } from '@hcn/contracts';
import { ViewBasis, basisEnd, basisIncludes } from './view-basis';

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
    expect(basisIncludes(recorded, at(100, 7))).toBe(true);
    expect(basisIncludes(recorded, at(100, 8))).toBe(false);
    expect(basisIncludes(recorded, at(103, 9))).toBe(true);
    expect(basisIncludes(recorded, at(104, 1), 'b')).toBe(true);
    expect(basisIncludes(recorded, at(104, 2), 'c')).toBe(false);
    expect(basisEnd(recorded)).toBe(105n);
    basis.delivered(at(104, 3)); // the log passed 103: no longer ahead
    expect(basis.record()).toEqual({ at: '104/3', ahead: '1', partial: [[0, 'b']] });
  });
});
