import { DEVICE_REASONS } from '../../devices/choose-devices';
import { deviceOutcome } from '../../devices/device-outcome';
import type { Filter } from '../types';

/** Rejects nodes whose devices cannot serve the request's device ask (vendor, health, memory, island, units). */
export const nodeDevicesFilter = {
  name: 'node-devices',
  reasons: DEVICE_REASONS,
  idle: (request) => request.devices === null,
  node: (node, request) => {
    const outcome = deviceOutcome(node, request);
    return outcome && 'rejection' in outcome ? outcome.rejection : undefined;
  },
} satisfies Filter;
