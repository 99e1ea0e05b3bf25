import { drawFor } from '../../random';
import type { Scorer } from '../types';

/** Salt of the random policy's draws (distinct from the tie-break's). */
export const RANDOM_SALT = 0x52414e44;

/** Random: a uniform score per candidate drawn from the decision's seed and the candidate id (replayable). */
export const randomScorer = {
  name: 'random' as const,
  score: (candidates, { request }, out) => {
    for (let i = 0; i < candidates.length; i++) {
      out[i] = (100 * drawFor(request.seed, RANDOM_SALT, candidates[i].idHash)) / 4294967296;
    }
  },
} satisfies Scorer;
