import { meanLeftFraction } from './fractions';
import type { Scorer } from '../types';

/**
 * Bin-pack (best fit): the candidate left with the least free after placing (mean over the resources it has)
 * scores highest, so full nodes fill up and empty ones stay empty; idle accelerators count as waste.
 */
export const binPackScorer = {
  name: 'bin-pack' as const,
  score: (candidates, { request }, out) => {
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i];
      out[i] = 100 * (1 - meanLeftFraction(c.capacity, c.free, request.resources));
    }
  },
} satisfies Scorer;
