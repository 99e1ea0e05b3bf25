import { DeviceRequestSpec, HcnError, candidateVendors } from '@hcn/contracts';

/** The largest device of the fleet and the most devices one node has, per vendor. */
export type FleetDeviceLimits = ReadonlyMap<
  string,
  { readonly memoryBytes: number; readonly perNode: number }
>;

/**
 * Refuses a device request no registered device could ever serve (more memory per device or slice than the
 * largest device of the allowed vendors, more devices than any node has). With no devices known yet, it passes:
 * the workload waits as unschedulable until fitting nodes join.
 */
export function checkDeviceRequestFits(
  request: DeviceRequestSpec | undefined,
  limits: FleetDeviceLimits,
): void {
  if (!request || limits.size === 0) return;
  const vendors = candidateVendors(request.vendors).filter((v) => limits.has(v));
  const memory = Math.max(0, ...vendors.map((v) => limits.get(v)!.memoryBytes));
  const perNode = Math.max(0, ...vendors.map((v) => limits.get(v)!.perNode));
  const wanted = request.sliceMemoryBytes ?? request.memoryPerDeviceBytes ?? 0;
  const count = request.sliceMemoryBytes === undefined ? request.count : 1;
  if (vendors.length > 0 && wanted <= memory && count <= perNode) return;
  throw new HcnError(
    'WORKLOAD.DEVICE_REQUEST_TOO_LARGE',
    vendors.length === 0
      ? 'No registered node has devices of the allowed vendors'
      : `Larger than any device: asks ${count} device(s) of ${wanted} bytes; the fleet has at most ${perNode} per node and ${memory} bytes per device`,
    { vendors, largestDeviceBytes: memory, mostDevicesPerNode: perNode },
  );
}
