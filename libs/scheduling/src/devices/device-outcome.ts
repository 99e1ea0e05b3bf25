import type { CompiledRequest } from '../constraints';
import type { NodeState } from '../tree/states';
import type { DeviceOutcome } from './choose-devices';
import { chooseDevices } from './choose-devices';

/** The device choice for a node within one decision, computed once and shared by filter, scorers and result. */
export function deviceOutcome(node: NodeState, request: CompiledRequest): DeviceOutcome | undefined {
  if (!request.devices) return undefined;
  let outcome = request.deviceOutcomes.get(node.id);
  if (!outcome) {
    outcome = chooseDevices(node.devices, request.devices);
    request.deviceOutcomes.set(node.id, outcome);
  }
  return outcome;
}
