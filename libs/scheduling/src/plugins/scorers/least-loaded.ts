import { meanFreeFraction } from './fractions';
import type { Scorer } from '../types';

/** Least-loaded: the candidate with the largest mean free fraction (over the resources it has) scores highest. */
export const leastLoadedScorer = {
  name: 'least-loaded' as const,
  score: (candidates, _context, out) => {
    for (let i = 0; i < candidates.length; i++)
      out[i] = 100 * meanFreeFraction(candidates[i].capacity, candidates[i].free);
  },
} satisfies Scorer;
