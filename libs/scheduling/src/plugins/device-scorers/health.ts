import type { DeviceScorer } from '../types';

/** Healthier devices first: the mean health (0–100) of the chosen devices. */
export const healthScorer = {
  name: 'health',
  score: (choice) => choice.meanHealth,
} satisfies DeviceScorer;
