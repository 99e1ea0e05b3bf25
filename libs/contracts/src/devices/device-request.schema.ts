import { z } from 'zod';
import { ACCELERATOR_VENDORS, AcceleratorVendor, acceleratorVendorSchema } from './device.schemas';
import { DEFAULT_EXCHANGE_RATES, computeUnits } from './exchange-rates';

/** Health below which a device is not handed out unless a request lowers the threshold. */
export const DEFAULT_MIN_DEVICE_HEALTH = 50;

/** Vendors whose devices form NVLink/HCCS islands (the others only have PCIe between devices). */
export const ISLAND_VENDORS: readonly AcceleratorVendor[] = ['nvidia', 'ascend'];
/** Vendors whose devices can be carved into memory slices (the vram-guard enforces CUDA allocations). */
export const SLICE_VENDORS: readonly AcceleratorVendor[] = ['nvidia'];

const allowDeny = <T extends z.ZodType>(item: T) =>
  z.object({ allow: z.array(item).max(64).default([]), deny: z.array(item).max(64).default([]) }).strict();

const knownModel = z
  .string()
  .min(1)
  .max(128)
  .refine((model) => computeUnits({ model }, DEFAULT_EXCHANGE_RATES) !== null, {
    message: `unknown accelerator model; known: ${Object.keys(DEFAULT_EXCHANGE_RATES).join(', ')}`,
  });

/**
 * What a workload asks of accelerator devices: whole devices (count, memory and TFLOPS per device, vendor and
 * model lists, compute units, one island), or one memory slice of a shared CUDA device.
 */
export const deviceRequestSchema = z
  .object({
    count: z.number().int().min(1).max(64).default(1),
    memoryPerDeviceBytes: z
      .number()
      .int()
      .positive()
      .max(2 ** 44)
      .optional(),
    tflopsFp16PerDevice: z.number().positive().max(1_000_000).optional(),
    computeUnits: z.number().positive().max(100_000).optional(),
    vendors: allowDeny(acceleratorVendorSchema).optional(),
    models: allowDeny(knownModel).optional(),
    topology: z.enum(['any', 'same-island']).default('any'),
    sliceMemoryBytes: z
      .number()
      .int()
      .positive()
      .max(2 ** 44)
      .optional(),
    preferVendors: z.array(acceleratorVendorSchema).max(ACCELERATOR_VENDORS.length).optional(),
    minHealth: z.number().int().min(0).max(100).default(DEFAULT_MIN_DEVICE_HEALTH),
  })
  .strict()
  .superRefine((r, ctx) => {
    const issue = (message: string, path: string) => ctx.addIssue({ code: 'custom', message, path: [path] });
    const vendors = candidateVendors(r.vendors);
    if (r.sliceMemoryBytes !== undefined) {
      if (r.count !== 1) issue('a memory slice is one device: count must be 1', 'count');
      if (r.memoryPerDeviceBytes !== undefined) issue('give the slice size alone', 'memoryPerDeviceBytes');
      if (!vendors.some((v) => SLICE_VENDORS.includes(v)))
        issue(`memory slices are enforced on ${SLICE_VENDORS.join(', ')} devices only`, 'sliceMemoryBytes');
    }
    if (r.topology === 'same-island' && r.count > 1 && !vendors.some((v) => ISLAND_VENDORS.includes(v)))
      issue(`one island needs NVLink or HCCS: vendors ${ISLAND_VENDORS.join(', ')}`, 'topology');
    if (vendors.length === 0) issue('the vendor lists exclude every vendor', 'vendors');
  });
/** A device request as stored (defaults applied). */
export type DeviceRequestSpec = z.output<typeof deviceRequestSchema>;

/** The vendors a request's allow/deny lists leave. */
export function candidateVendors(
  lists: { allow: AcceleratorVendor[]; deny: AcceleratorVendor[] } | undefined,
) {
  const allowed = lists?.allow.length ? lists.allow : [...ACCELERATOR_VENDORS];
  return allowed.filter((v) => !(lists?.deny ?? []).includes(v));
}

/** The devices one placement holds: whole devices, or a memory slice of one. */
export const deviceGrantSchema = z
  .object({
    index: z.number().int().min(0).max(1023),
    vendor: acceleratorVendorSchema,
    sliceMemoryBytes: z.number().int().positive().optional(),
  })
  .strict();
/** One device held by a placement. */
export type DeviceGrant = z.infer<typeof deviceGrantSchema>;

/** The devices a placement chose and each device scorer's rating (topology, fragmentation, health, vendor). */
export const placedDevicesSchema = z
  .object({
    vendor: acceleratorVendorSchema,
    indexes: z.array(z.number().int().min(0).max(1023)).max(64),
    sliceMemoryBytes: z.number().int().positive().optional(),
    oneIsland: z.boolean(),
    bandwidthGBps: z.number().nonnegative(),
    computeUnits: z.number().nonnegative(),
    scores: z.record(z.string().max(64), z.number()),
  })
  .strict();
/** The devices a placement chose. */
export type PlacedDevices = z.infer<typeof placedDevicesSchema>;
