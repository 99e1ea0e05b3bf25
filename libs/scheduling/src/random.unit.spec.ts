import { decisionSeed, drawFor, fnv1a32, mulberry32 } from './random';

describe('seeded randomness', () => {
  it.each<[string, number]>([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('fnv1a32(%j) matches the reference vector', (text, hash) => {
    expect(fnv1a32(text)).toBe(hash);
  });

  it('mulberry32 replays the same sequence for the same seed, in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBe(100);
  });

  it('seeds differ per workload and instance, draws per candidate and salt', () => {
    expect(decisionSeed('w', 0)).toBe(decisionSeed('w', 0));
    expect(decisionSeed('w', 0)).not.toBe(decisionSeed('w', 1));
    expect(decisionSeed('w', 0)).not.toBe(decisionSeed('v', 0));
    const seed = decisionSeed('w', 0);
    expect(drawFor(seed, 1, fnv1a32('n1'))).toBe(drawFor(seed, 1, fnv1a32('n1')));
    expect(drawFor(seed, 1, fnv1a32('n1'))).not.toBe(drawFor(seed, 2, fnv1a32('n1')));
    expect(drawFor(seed, 1, fnv1a32('n1'))).not.toBe(drawFor(seed, 1, fnv1a32('n2')));
  });
});
