import { z } from 'zod';

/** Accelerator vendors the agent can detect. */
export const ACCELERATOR_VENDORS = ['nvidia', 'ascend', 'hygon', 'cambricon'] as const;
/** An accelerator vendor. */
export const acceleratorVendorSchema = z.enum(ACCELERATOR_VENDORS);
/** An accelerator vendor. */
export type AcceleratorVendor = z.infer<typeof acceleratorVendorSchema>;

/** Kinds of device-to-device links. */
export const INTERCONNECT_KINDS = ['nvlink', 'hccs', 'pcie', 'roce'] as const;
/** A kind of device-to-device link. */
export type InterconnectKind = (typeof INTERCONNECT_KINDS)[number];

const deviceIndex = z.number().int().min(0).max(1023);

/** One link from a device to a peer device on the same node (peer is the peer's index). */
export const interconnectLinkSchema = z.object({
  kind: z.enum(INTERCONNECT_KINDS),
  peer: deviceIndex,
  bandwidthGBps: z.number().nonnegative(),
});
/** One link from a device to a peer device on the same node. */
export type InterconnectLink = z.infer<typeof interconnectLinkSchema>;

/** One accelerator (GPU, NPU, DCU, MLU) as detected or declared on a node; unknown numbers are left out. */
export const acceleratorDeviceSchema = z.object({
  index: deviceIndex,
  vendor: acceleratorVendorSchema,
  model: z.string().min(1).max(128),
  uuid: z.string().min(1).max(128).optional(),
  serial: z.string().min(1).max(128).optional(),
  memoryBytes: z.number().int().nonnegative().optional(),
  tflopsFp16: z.number().nonnegative().optional(),
  tflopsFp32: z.number().nonnegative().optional(),
  busId: z.string().min(1).max(64).optional(),
  numaNode: z.number().int().min(0).max(1023).nullable(),
  health: z.number().int().min(0).max(100),
  interconnect: z.array(interconnectLinkSchema).max(4096),
});
/** One accelerator device. */
export type AcceleratorDevice = z.infer<typeof acceleratorDeviceSchema>;

/** The devices of a node and their fingerprint (see `deviceFingerprint`); (vendor, index) is unique. */
export const nodeDevicesSchema = z.object({
  devices: z
    .array(acceleratorDeviceSchema)
    .max(1024)
    .refine(
      (devices) => new Set(devices.map((d) => `${d.vendor}/${d.index}`)).size === devices.length,
      'each (vendor, index) appears once',
    ),
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/, 'fingerprint: 16 hex digits'),
});
/** The devices of a node and their fingerprint. */
export type NodeDevices = z.infer<typeof nodeDevicesSchema>;

/** Usage of one device, sent with heartbeats (vendor disambiguates mixed-vendor nodes). */
export const deviceUsageSchema = z.object({
  index: deviceIndex,
  vendor: acceleratorVendorSchema.optional(),
  utilization: z.number().min(0).max(1),
  memoryUsedBytes: z.number().int().nonnegative(),
  temperatureC: z.number().min(-100).max(300).optional(),
  health: z.number().int().min(0).max(100),
});
/** Usage of one device. */
export type DeviceUsage = z.infer<typeof deviceUsageSchema>;

/** How one device is handed out: whole to one allocation, or as memory slices to several. */
export const deviceAllocationStateSchema = z.object({
  index: deviceIndex,
  wholeDevice: z.boolean(),
  /** The allocation holding the whole device, or null. */
  allocationId: z.string().min(1).max(200).nullable(),
  slices: z.array(
    z.object({ allocationId: z.string().min(1).max(200), memoryBytes: z.number().int().min(0) }),
  ),
});
/** How one device is handed out. */
export type DeviceAllocationState = z.infer<typeof deviceAllocationStateSchema>;

/** Memory of a device not yet handed out: 0 when held whole, memory minus slices otherwise (never negative). */
export function freeMemoryOf(device: AcceleratorDevice, allocation?: DeviceAllocationState): number {
  const total = device.memoryBytes ?? 0;
  if (!allocation) return total;
  if (allocation.index !== device.index) {
    throw new RangeError(`allocation state of device ${allocation.index} given for device ${device.index}`);
  }
  if (allocation.wholeDevice) return 0;
  const sliced = allocation.slices.reduce((sum, slice) => sum + slice.memoryBytes, 0);
  return Math.max(0, total - sliced);
}
