import type { CompiledRequest } from '../constraints';
import type { DeviceRequest } from '../model';
import type { NodeState } from '../tree/states';
import type { DeviceOutcome } from './choose-devices';
import {
  allowedVendor,
  chooseDevices,
  DEVICE_BUSY,
  DEVICE_NONE,
  DEVICE_VENDOR_MODEL,
} from './choose-devices';
import { deviceMaxFits } from './device-max';

/** The device choice for a node within one decision, computed once and shared by filter, scorers and result. */
export function deviceOutcome(node: NodeState, request: CompiledRequest): DeviceOutcome | undefined {
  if (!request.devices) return undefined;
  if (node.outcomeFor === request) return node.outcome;
  const outcome =
    quickRejection(node, request.devices) ?? chooseDevices(node.devices, request.devices, node.deviceLayout);
  node.outcomeFor = request;
  node.outcome = outcome;
  request.judgedNodes.push(node);
  return outcome;
}

/** Drops the outcomes a decision cached on nodes, so they die young instead of outliving the decision. */
export function forgetDeviceOutcomes(request: CompiledRequest): void {
  for (const node of request.judgedNodes) {
    node.outcomeFor = undefined;
    node.outcome = undefined;
  }
  request.judgedNodes.length = 0;
}

/** A rejection from the node's cached device maxima alone (most nodes of a mixed fleet), else undefined. */
function quickRejection(node: NodeState, ask: DeviceRequest): DeviceOutcome | undefined {
  if (node.devices.length === 0)
    return { rejection: { reason: DEVICE_NONE, detail: 'the node has no accelerator devices' } };
  const max = node.deviceMax;
  if (!node.usable || deviceMaxFits(max, ask)) return undefined;
  const vendors = [...max.keys()].filter((v) => allowedVendor(ask, v));
  if (vendors.length === 0)
    return {
      rejection: {
        reason: DEVICE_VENDOR_MODEL,
        detail: `no device of an allowed vendor (has ${[...max.keys()].join(', ')})`,
      },
    };
  const what =
    ask.sliceMemoryBytes !== undefined
      ? `a ${ask.sliceMemoryBytes}-byte slice`
      : `${ask.count} free device(s)`;
  return { rejection: { reason: DEVICE_BUSY, detail: `need ${what} of ${vendors.join('/')}; not free` } };
}
