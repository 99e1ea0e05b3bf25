/** A fixed-size segment tree of non-negative numbers answering "largest value" in O(1), updating in O(log n). */
export class MaxTree {
  private readonly size: number;
  private readonly cells: Float64Array;

  constructor(values: readonly number[]) {
    let size = 1;
    while (size < values.length) size *= 2;
    this.size = size;
    this.cells = new Float64Array(2 * size);
    for (let i = 0; i < values.length; i++) this.cells[size + i] = values[i];
    for (let i = size - 1; i >= 1; i--) this.cells[i] = Math.max(this.cells[2 * i], this.cells[2 * i + 1]);
  }

  /** The largest value (0 when empty). */
  max(): number {
    return this.cells[1] ?? 0;
  }

  /** Sets slot `i` and refreshes its ancestors; returns the new maximum. */
  set(i: number, value: number): number {
    let at = this.size + i;
    this.cells[at] = value;
    for (at >>= 1; at >= 1; at >>= 1) {
      const next = Math.max(this.cells[2 * at], this.cells[2 * at + 1]);
      if (this.cells[at] === next) break;
      this.cells[at] = next;
    }
    return this.cells[1];
  }
}
