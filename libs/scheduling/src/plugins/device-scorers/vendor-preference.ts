import { preferenceRank } from '../../devices/choose-devices';
import type { DeviceScorer } from '../types';

/** The request's preferred vendors first: 100 for the first, falling by rank, 0 for an unlisted vendor. */
export const vendorPreferenceScorer = {
  name: 'vendor-preference',
  score: (choice, request) => {
    const list = request.preferVendors ?? [];
    if (list.length === 0) return 100;
    return 100 - (100 * preferenceRank(request, choice.vendor)) / list.length;
  },
} satisfies DeviceScorer;
