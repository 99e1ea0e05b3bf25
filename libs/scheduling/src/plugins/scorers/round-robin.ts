import type { Scorer } from '../types';

/**
 * Round-robin: the eligible candidates in id order, starting at the scope's `placements` counter modulo their
 * number; the one whose turn it is scores 100, the next a little less, and so on around the ring.
 */
export const roundRobinScorer = {
  name: 'round-robin' as const,
  score: (candidates, { scope }, out) => {
    const n = candidates.length;
    const start = (scope?.placements ?? 0) % Math.max(n, 1);
    for (let i = 0; i < n; i++) out[i] = 100 * (1 - ((i - start + n) % n) / n);
  },
} satisfies Scorer;
