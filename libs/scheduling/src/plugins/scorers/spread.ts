import { minLeftFraction } from './fractions';
import type { Scorer } from '../types';

/**
 * Spread (dominant-share balancing): scores by the free fraction of the candidate's scarcest resource after
 * placing, so the most-used resource of any node or domain grows as slowly as possible. Unlike least-loaded (a
 * mean) one exhausted resource is enough to push a candidate to the back.
 */
export const spreadScorer = {
  name: 'spread' as const,
  score: (candidates, { request }, out) => {
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i];
      out[i] = 100 * minLeftFraction(c.capacity, c.free, request.resources);
    }
  },
} satisfies Scorer;
