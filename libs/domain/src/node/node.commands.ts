import type { AcceleratorVendor, DeviceGrant, EventDataOf, ResourceAmounts } from '@hcn/contracts';

/** Commands the node decider accepts. Time is passed in (`now`, ISO-8601); the decider reads no clock. */
export type NodeCommand =
  | { type: 'RegisterNode'; registration: EventDataOf<'NodeRegistered'> }
  | { type: 'ObserveHeartbeat'; nodeId: string; seenAt: string }
  | { type: 'CheckLiveness'; nodeId: string; now: string; ttlSeconds: number; lastSeenAt: string | null }
  | { type: 'RequestDrain'; nodeId: string; reason: string }
  | { type: 'RequestStop'; nodeId: string; reason: string }
  | { type: 'ChangeLabels'; nodeId: string; labels: Record<string, string> }
  | { type: 'Deregister'; nodeId: string; reason: string }
  | {
      type: 'ReserveCapacity';
      nodeId: string;
      allocationId: string;
      workloadId: string;
      resources: ResourceAmounts;
      /** Devices to hold (whole, or memory slices). */
      devices?: readonly DeviceGrant[];
    }
  | { type: 'ReleaseCapacity'; nodeId: string; allocationId: string; reason: string }
  | {
      type: 'ObserveDeviceHealth';
      nodeId: string;
      devices: ReadonlyArray<{ vendor: AcceleratorVendor; index: number; health: number }>;
    };

/** An event the node decider emits (type and data; the handler adds ids and metadata). */
export type NodeEvent =
  | { type: 'NodeRegistered'; data: EventDataOf<'NodeRegistered'> }
  | { type: 'NodeReregistered'; data: EventDataOf<'NodeReregistered'> }
  | { type: 'NodeWentOffline'; data: EventDataOf<'NodeWentOffline'> }
  | { type: 'NodeCameOnline'; data: EventDataOf<'NodeCameOnline'> }
  | { type: 'NodeDrainRequested'; data: EventDataOf<'NodeDrainRequested'> }
  | { type: 'NodeStopRequested'; data: EventDataOf<'NodeStopRequested'> }
  | { type: 'NodeDeregistered'; data: EventDataOf<'NodeDeregistered'> }
  | { type: 'NodeLabelsChanged'; data: EventDataOf<'NodeLabelsChanged'> }
  | { type: 'NodeDeviceHealthChanged'; data: EventDataOf<'NodeDeviceHealthChanged'> }
  | { type: 'CapacityReserved'; data: EventDataOf<'CapacityReserved'> }
  | { type: 'CapacityReleased'; data: EventDataOf<'CapacityReleased'> };
