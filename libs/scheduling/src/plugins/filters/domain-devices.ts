import { deviceMaxFits } from '../../devices/device-max';
import type { Filter } from '../types';

/** No node of the subtree has enough free devices (or slice memory) of an allowed vendor. */
export const DOMAIN_NO_FITTING_DEVICES = 'FILTER.DOMAIN_NO_FITTING_DEVICES';

/** Skips subtrees whose device maxima cannot hold the device ask (vendor and count or slice only: an upper bound). */
export const domainDevicesFilter = {
  name: 'domain-devices',
  reasons: [DOMAIN_NO_FITTING_DEVICES],
  idle: (request) => request.devices === null,
  domain: (domain, request) => {
    const ask = request.devices;
    if (!ask || deviceMaxFits(domain.deviceMax, ask)) return undefined;
    const what =
      ask.sliceMemoryBytes !== undefined
        ? `a ${ask.sliceMemoryBytes}-byte slice`
        : `${ask.count} free device(s)`;
    return { reason: DOMAIN_NO_FITTING_DEVICES, detail: `no node below has ${what} of an allowed vendor` };
  },
} satisfies Filter;
