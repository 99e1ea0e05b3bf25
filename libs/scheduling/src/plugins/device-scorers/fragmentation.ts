import type { DeviceScorer } from '../types';

/** Fills partly used nodes and devices before empty ones: the share already in use (slices: the fill after). */
export const fragmentationScorer = {
  name: 'fragmentation',
  score: (choice) => 100 * choice.fill,
} satisfies DeviceScorer;
