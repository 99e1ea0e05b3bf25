import type { DeviceScorer } from '../types';

/** Island bandwidth that scores 100 (a 12-link NVLink island, ≈ 300 GB/s). */
export const FULL_SCORE_GBPS = 300;

/** Faster islands first: one device scores 100, devices spread over islands 0, else bandwidth / 300 GB/s. */
export const topologyScorer = {
  name: 'topology',
  score: (choice) => {
    if (choice.indexes.length === 1) return 100;
    if (!choice.oneIsland) return 0;
    return Math.min(100, (100 * choice.bandwidthGBps) / FULL_SCORE_GBPS);
  },
} satisfies DeviceScorer;
