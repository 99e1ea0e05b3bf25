import {
  deviceFingerprint,
  type AcceleratorVendor,
  type DeviceUsage,
  type NodeDevices,
} from '@hcn/contracts';
import { detectAscend } from './ascend.detector';
import { detectCambricon } from './cambricon.detector';
import { expandDeclaredDevices, type DeclaredDeviceGroup } from './declared-devices';
import { detectHygon } from './hygon.detector';
import { detectNvidia, sampleNvidiaUsage } from './nvidia.detector';
import { execTool, type ParsedDevices, type ToolRunner } from './tool-runner';

/** Inputs of `detectAccelerators`: declared groups (skip detection) and the tool runner (for tests). */
export interface DetectAcceleratorsOptions {
  declared?: readonly DeclaredDeviceGroup[];
  run?: ToolRunner;
}

/** A node's devices with their fingerprint, their usage now, where they came from and what was skipped. */
export interface DetectedAccelerators extends NodeDevices {
  usage: DeviceUsage[];
  source: 'declared' | 'detected';
  warnings: string[];
}

/** The vendor detectors, in the order their devices are listed. */
export const VENDOR_DETECTORS: ReadonlyArray<{
  name: string;
  detect: (run: ToolRunner) => Promise<ParsedDevices>;
}> = [
  { name: 'nvidia', detect: detectNvidia },
  { name: 'ascend', detect: detectAscend },
  { name: 'hygon', detect: detectHygon },
  { name: 'cambricon', detect: detectCambricon },
];

async function safely(name: string, detect: () => Promise<ParsedDevices>): Promise<ParsedDevices> {
  try {
    return await detect();
  } catch (error) {
    return { devices: [], usage: [], warnings: [`${name}: detection failed: ${(error as Error).message}`] };
  }
}

function declaredResult(groups: readonly DeclaredDeviceGroup[]): DetectedAccelerators {
  const devices = expandDeclaredDevices(groups);
  const usage = devices.map((d) => ({
    index: d.index,
    vendor: d.vendor,
    utilization: 0,
    memoryUsedBytes: 0,
    health: d.health,
  }));
  return { devices, fingerprint: deviceFingerprint(devices), usage, source: 'declared', warnings: [] };
}

/**
 * The node's accelerators: the declared devices when `declared` is given (even empty: a node declared to have
 * none is not probed), else the union of every vendor detector, each device keeping the index its own tool
 * reports. Never throws: a detector that fails adds a warning.
 */
export async function detectAccelerators(
  options: DetectAcceleratorsOptions = {},
): Promise<DetectedAccelerators> {
  if (options.declared !== undefined) return declaredResult(options.declared);
  const run = options.run ?? execTool;
  const results = await Promise.all(VENDOR_DETECTORS.map((d) => safely(d.name, () => d.detect(run))));
  const devices = results.flatMap((r) => r.devices);
  return {
    devices,
    fingerprint: deviceFingerprint(devices),
    usage: results.flatMap((r) => r.usage),
    source: 'detected',
    warnings: results.flatMap((r) => r.warnings),
  };
}

/**
 * Usage of the node's devices now, for heartbeats: declared devices report their declared health; otherwise only
 * the tools of the vendors the node registered are asked (NVIDIA: the query without the topology).
 */
export async function sampleDeviceUsage(
  vendors: ReadonlySet<AcceleratorVendor>,
  options: DetectAcceleratorsOptions = {},
): Promise<DeviceUsage[]> {
  if (options.declared !== undefined) return declaredResult(options.declared).usage;
  const run = options.run ?? execTool;
  const detectors = VENDOR_DETECTORS.filter((d) => vendors.has(d.name as AcceleratorVendor));
  const results = await Promise.all(
    detectors.map((d) =>
      safely(d.name, () => (d.name === 'nvidia' ? sampleNvidiaUsage(run) : d.detect(run))),
    ),
  );
  return results.flatMap((r) => r.usage);
}
