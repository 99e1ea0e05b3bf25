import type { AcceleratorDevice, AgentCommand } from '@hcn/contracts';
import { DeviceRuntime, DeviceRuntimeError, deviceRuntime } from './device-runtime';

type Placement = Extract<AgentCommand, { kind: 'run' }>['placement'];

/**
 * What a placement's devices add to its run (visible devices, device nodes, mounts, the guard preloaded from
 * `guardPath`, where the workload sees it); undefined without devices. Throws DeviceRuntimeError when refused: a
 * memory slice without the vram-guard library (`vramGuardPath`), or devices this node does not have.
 */
export function placementDevices(
  placement: Placement,
  devices: readonly AcceleratorDevice[],
  vramGuardPath: string | undefined,
  guardPath: string | undefined,
): DeviceRuntime | undefined {
  if (!placement.devices) return undefined;
  if (placement.devices.sliceMemoryBytes !== undefined && !vramGuardPath)
    throw new DeviceRuntimeError('a memory slice needs the vram-guard library (HCN_VRAM_GUARD), not found');
  return deviceRuntime(placement.devices, devices, {
    vramGuardPath: guardPath,
    inheritedPreload: placement.env.LD_PRELOAD,
  });
}
