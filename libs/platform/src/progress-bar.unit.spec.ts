import { progressBar } from './progress-bar';

describe('progressBar', () => {
  it.each([
    [0, 10, '..........'],
    [0.26, 10, '###.......'],
    [1, 10, '##########'],
    [1.7, 10, '##########'],
    [-1, 4, '....'],
  ])('%d of %d cells', (fraction, width, bar) => {
    expect(progressBar(fraction, width)).toBe(bar);
  });

  it('is 30 cells wide by default', () => expect(progressBar(0.5)).toHaveLength(30));
});
