import type { DeviceGrant, EventDataOf, ResourceAmounts } from '@hcn/contracts';
import { BucketMap } from '../bucket-map';
import { NO_RESOURCES } from '../resources';

/** Buckets of a node's reservation map: a node holds tens to hundreds of allocations (bin-packing). */
const RESERVATION_BUCKETS = 32;

/** Lifecycle status of a node. */
export type NodeStatus = 'unregistered' | 'online' | 'offline' | 'deregistered';

/** What the node decider knows about one node (folded from `node-<id>`). */
export interface NodeState {
  readonly status: NodeStatus;
  readonly registration?: EventDataOf<'NodeRegistered'>;
  readonly draining: boolean;
  readonly stopRequested: boolean;
  readonly labels: Readonly<Record<string, string>>;
  /** Last heartbeat the node stream knows of (set by online transitions). */
  readonly lastSeenAt?: string;
  /** Capacity set aside per allocation id (a reservation copies one bucket, not the whole map). */
  readonly reservations: BucketMap<ResourceAmounts>;
  /** The sum of `reservations`, kept as they change. */
  readonly reserved: ResourceAmounts;
  /** Devices held per allocation id (only allocations that asked for devices). */
  readonly deviceGrants: Readonly<Record<string, readonly DeviceGrant[]>>;
  /** Device health as heartbeats last moved it (`vendor/index`), overriding the registration's. */
  readonly deviceHealth: Readonly<Record<string, number>>;
}

/** State before any event. */
export const initialNodeState: NodeState = {
  status: 'unregistered',
  draining: false,
  stopRequested: false,
  labels: {},
  reservations: BucketMap.empty(RESERVATION_BUCKETS),
  reserved: NO_RESOURCES,
  deviceGrants: {},
  deviceHealth: {},
};
