import { z } from 'zod';
import { defineEvent } from '../registry';
import {
  acceleratorDeviceSchema,
  acceleratorVendorSchema,
  deviceUsageSchema,
} from '../devices/device.schemas';
import { deviceGrantSchema } from '../devices/device-request.schema';
import { resourcesSchema } from './resources.schemas';
import { Runtime, allocationUsageSchema, runtimeSchema } from './container.spec';
import { ServedFramework, servedFrameworkSchema } from './model.spec';

const labelKey = z
  .string()
  .regex(/^[a-zA-Z0-9]([a-zA-Z0-9._/-]{0,62}[a-zA-Z0-9])?$/, 'label keys: letters, digits, . _ / -');
/** Labels of a node: short keys, short values. */
export const labelsSchema = z
  .record(labelKey, z.string().max(128))
  .refine((l) => Object.keys(l).length <= 64, 'at most 64 labels');

/** Identifier of a domain: lower-case letters, digits and dashes. */
export const domainIdSchema = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'domain ids: a-z, 0-9, dashes');

/** Identifier of a node: a UUID. */
export const nodeIdSchema = z.string().uuid();

/** What an agent found on its machine. */
export const nodeResourcesSchema = z.object({
  hostname: z.string().min(1).max(253),
  arch: z.string().min(1).max(32),
  os: z.string().min(1).max(64),
  cpuCores: z.number().int().positive().max(4096),
  memoryBytes: z.number().int().positive(),
  diskBytes: z.number().int().nonnegative(),
  /** Schedulable accelerator devices (GPU, NPU, DCU, MLU); detection comes with the accelerators work. */
  accelerators: z.number().int().min(0).max(1024).default(0),
  /** The accelerator devices behind that count (vendor, model, memory, interconnect), when the agent knows them. */
  devices: z.array(acceleratorDeviceSchema).max(1024).default([]),
  /** Runtimes the agent can run workloads with (absent, as before runtimes were reported: processes only). */
  runtimes: z.array(runtimeSchema).max(8).optional(),
  /** Model frameworks the agent serves, with the runtimes it serves each with (absent: none, as before models). */
  modelFrameworks: z.array(servedFrameworkSchema).max(64).optional(),
  /** Where clients reach what the node publishes (services' ports): an IP address or DNS name (absent: hostname). */
  address: z
    .string()
    .max(253)
    .regex(/^[A-Za-z0-9]([A-Za-z0-9.:-]*[A-Za-z0-9])?$/, 'an IP address or a DNS name')
    .optional(),
});

/** The runtimes a registration offers (absent: processes only, as agents registered before they said). */
export function runtimesOf(registration: { readonly runtimes?: readonly Runtime[] }): readonly Runtime[] {
  return registration.runtimes ?? ['process'];
}

/** The model frameworks a registration serves (absent: none). */
export function modelFrameworksOf(registration: {
  readonly modelFrameworks?: readonly ServedFramework[];
}): readonly ServedFramework[] {
  return registration.modelFrameworks ?? [];
}

/** Resources found on a node. */
export type NodeResources = z.infer<typeof nodeResourcesSchema>;

const registration = nodeResourcesSchema.extend({
  nodeId: nodeIdSchema,
  domainId: domainIdSchema,
  labels: labelsSchema,
  isHead: z.boolean(),
  agentVersion: z.string().min(1).max(64),
});

/** Usage measured on a node. */
export const nodeUsageSchema = z.object({
  cpuUsage: z.number().min(0).max(1),
  memoryUsedBytes: z.number().int().nonnegative(),
  diskUsedBytes: z.number().int().nonnegative(),
  load1: z.number().nonnegative().optional(),
});

/** Usage measured on a node. */
export type NodeUsage = z.infer<typeof nodeUsageSchema>;

/** A node joined the network for the first time. */
export const NodeRegistered = defineEvent('NodeRegistered', 1, registration);
/** A known node registered again (agent restart, new resources). */
export const NodeReregistered = defineEvent('NodeReregistered', 1, registration);
/** A heartbeat arrived; lives in `heartbeat-<nodeId>` with retention. */
export const NodeHeartbeatRecorded = defineEvent(
  'NodeHeartbeatRecorded',
  1,
  z.object({
    nodeId: nodeIdSchema,
    seq: z.number().int().nonnegative(),
    sentAt: z.string().datetime({ offset: true }),
    usage: nodeUsageSchema,
    runningAllocations: z.array(z.string().max(200)).max(10000),
    /** Usage and health of each accelerator device, when the node has devices. */
    devices: z.array(deviceUsageSchema).max(1024).optional(),
    /** Measured usage of each running allocation (agents that measure it). */
    allocationUsage: z.array(allocationUsageSchema).max(10000).optional(),
  }),
);
/** No heartbeat for longer than the node TTL. */
export const NodeWentOffline = defineEvent(
  'NodeWentOffline',
  1,
  z.object({
    nodeId: nodeIdSchema,
    lastSeenAt: z.string().datetime({ offset: true }).nullable(),
    ttlSeconds: z.number().positive(),
  }),
);
/** A heartbeat arrived from an offline node. */
export const NodeCameOnline = defineEvent(
  'NodeCameOnline',
  1,
  z.object({ nodeId: nodeIdSchema, seenAt: z.string().datetime({ offset: true }) }),
);
/** An operator asked that no new work be placed on the node. */
export const NodeDrainRequested = defineEvent(
  'NodeDrainRequested',
  1,
  z.object({ nodeId: nodeIdSchema, reason: z.string().max(500) }),
);
/** An operator asked the node's agent to stop gracefully. */
export const NodeStopRequested = defineEvent(
  'NodeStopRequested',
  1,
  z.object({ nodeId: nodeIdSchema, reason: z.string().max(500) }),
);
/** The node left the network. */
export const NodeDeregistered = defineEvent(
  'NodeDeregistered',
  1,
  z.object({ nodeId: nodeIdSchema, reason: z.string().max(500) }),
);
/** Heartbeats report a device's health crossing the scheduling threshold or moving by 10 points or more. */
export const NodeDeviceHealthChanged = defineEvent(
  'NodeDeviceHealthChanged',
  1,
  z.object({
    nodeId: nodeIdSchema,
    /** Devices whose health, as heartbeats report it, moved enough to matter to scheduling. */
    devices: z
      .array(
        z.object({
          vendor: acceleratorVendorSchema,
          index: z.number().int().min(0).max(1023),
          health: z.number().int().min(0).max(100),
        }),
      )
      .min(1)
      .max(1024),
  }),
);
/** An operator replaced the node's labels. */
export const NodeLabelsChanged = defineEvent(
  'NodeLabelsChanged',
  1,
  z.object({ nodeId: nodeIdSchema, labels: labelsSchema }),
);

/** Capacity on the node was set aside for one allocation (appended with the node stream's expected revision). */
export const CapacityReserved = defineEvent(
  'CapacityReserved',
  1,
  z.object({
    nodeId: nodeIdSchema,
    allocationId: z.string().uuid(),
    workloadId: z.string().uuid(),
    resources: resourcesSchema,
    /** The devices held (whole, or a memory slice), when the workload asked for devices. */
    devices: z.array(deviceGrantSchema).max(64).optional(),
  }),
);
/** Capacity held for an allocation was given back. */
export const CapacityReleased = defineEvent(
  'CapacityReleased',
  1,
  z.object({ nodeId: nodeIdSchema, allocationId: z.string().uuid(), reason: z.string().max(200) }),
);

/** Every node event definition. */
export const NODE_EVENTS = [
  CapacityReserved,
  CapacityReleased,
  NodeRegistered,
  NodeReregistered,
  NodeHeartbeatRecorded,
  NodeWentOffline,
  NodeCameOnline,
  NodeDrainRequested,
  NodeStopRequested,
  NodeDeregistered,
  NodeLabelsChanged,
  NodeDeviceHealthChanged,
] as const;

/** Stream of a node's lifecycle. */
export const nodeStream = (nodeId: string): string => `node-${nodeId}`;
/** Stream of a node's heartbeats (retention by maxAge). */
export const heartbeatStream = (nodeId: string): string => `heartbeat-${nodeId}`;
