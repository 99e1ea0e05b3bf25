import { deviceUsageSchema } from '../devices/device.schemas';
import { placedDevicesSchema } from '../devices/device-request.schema';
import { z } from 'zod';
import {
  allocationLimitsSchema,
  allocationUsageSchema,
  containerPlacementSchema,
  measuredUsageSchema,
  publishedPortSchema,
} from '../events/container.spec';
import { servicePlacementSchema } from '../events/service.spec';
import { modelPlacementSchema } from '../events/model.spec';
import {
  domainIdSchema,
  labelsSchema,
  nodeIdSchema,
  nodeResourcesSchema,
  nodeUsageSchema,
} from '../events/node.events';

/** Body of `POST /v1/agents/register`. */
export const registerNodeRequestSchema = nodeResourcesSchema.extend({
  joinToken: z.string().min(1).max(512),
  nodeId: nodeIdSchema.optional(),
  domainId: domainIdSchema,
  labels: labelsSchema.default({}),
  isHead: z.boolean().default(false),
  agentVersion: z.string().min(1).max(64),
});

/** Body of `POST /v1/agents/register`. */
export type RegisterNodeRequest = z.input<typeof registerNodeRequestSchema>;

/** Reply to a registration: identity, credential, topics and intervals. */
export interface RegisterNodeResponse {
  nodeId: string;
  credential: string;
  /** The key the hub signs this node's commands with (sent only in registration answers). */
  commandKey: string;
  reportsTopic: string;
  commandTopic: string;
  heartbeatIntervalSeconds: number;
  nodeTtlSeconds: number;
}

const reportBase = {
  nodeId: nodeIdSchema,
  domainId: domainIdSchema,
  /** HMAC of the report (every other field) with the node's key (`commandMac`): no bearer secret on the wire. */
  mac: z.string().min(1).max(128),
  /** Per-agent report sequence, strictly increasing across restarts. */
  seq: z.number().int().nonnegative(),
  sentAt: z.string().datetime({ offset: true }),
};

/** What an agent says about one allocation it runs. */
export const allocationReportSchema = z.object({
  kind: z.literal('allocation'),
  ...reportBase,
  workloadId: z.string().uuid(),
  allocationId: z.string().uuid(),
  /**
   * `lost`: the agent can no longer follow it (its container engine went away); the hub marks it lost. `ready` and
   * `not-ready`: a service's readiness changed (`reason` says why it is not ready).
   */
  status: z.enum(['started', 'ready', 'not-ready', 'completed', 'failed', 'stopped', 'lost']),
  pid: z.number().int().nullable().default(null),
  exitCode: z.number().int().nullable().default(null),
  signal: z.string().max(16).nullable().default(null),
  reason: z.string().max(2000).default(''),
  endedBy: z.enum(['SIGTERM', 'SIGKILL', 'not-running']).default('not-running'),
  /** Ports the engine published (a started container). */
  ports: z.array(publishedPortSchema).max(64).optional(),
  /** What the allocation used over its life (an ended allocation, when measured). */
  usage: measuredUsageSchema.optional(),
  at: z.string().datetime({ offset: true }),
});

/** New output of an allocation's process; `offset` counts every byte the stream ever wrote. */
export const logsReportSchema = z.object({
  kind: z.literal('logs'),
  ...reportBase,
  workloadId: z.string().uuid(),
  allocationId: z.string().uuid(),
  chunks: z
    .array(
      z.object({
        stream: z.enum(['stdout', 'stderr']),
        /** Bytes the stream wrote before this chunk (at most 2^40: 1 TiB of output). */
        offset: z
          .number()
          .int()
          .min(0)
          .max(2 ** 40),
        text: z.string().max(262144),
      }),
    )
    .max(8),
});

/** A heartbeat: usage and what runs. */
export const heartbeatReportSchema = z.object({
  kind: z.literal('heartbeat'),
  ...reportBase,
  usage: nodeUsageSchema,
  /** Usage and health of each accelerator device (nodes with devices). */
  devices: z.array(deviceUsageSchema).max(1024).optional(),
  runningAllocations: z.array(z.string().max(200)).max(10000).default([]),
  /** Measured usage of the running allocations (when the agent measures it). */
  allocationUsage: z.array(allocationUsageSchema).max(10000).optional(),
  /** The last report before a graceful stop. */
  final: z.boolean().default(false),
});

/** A report an agent publishes on `hcn.agent-reports` (key = node id). */
export const agentReportSchema = z.discriminatedUnion('kind', [
  heartbeatReportSchema,
  allocationReportSchema,
  logsReportSchema,
]);

/** A report an agent publishes on `hcn.agent-reports`. */
export type AgentReport = z.input<typeof agentReportSchema>;
/** A validated report. */
export type ParsedAgentReport = z.output<typeof agentReportSchema>;

const commandBase = {
  /** Id of the event that caused the command: agents apply each command once. */
  commandId: z.string().uuid(),
  nodeId: nodeIdSchema,
  /** When the hub signed it (agents refuse old ones). */
  issuedAt: z.string().datetime({ offset: true }).optional(),
  /** HMAC of the command with its node's command key (`commandMac`); agents refuse commands without a valid one. */
  mac: z.string().max(128).optional(),
};

/** What an agent needs to run one allocation. */
export const placementSchema = z.object({
  workloadId: z.string().uuid(),
  allocationId: z.string().uuid(),
  instance: z.number().int().min(0),
  attempt: z.number().int().min(0),
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  /** Secret environment entries: hub-sealed in the placement, sealed for the node (its command key) on the bus. */
  secretEnv: z.record(z.string(), z.string()).optional(),
  /** The secret entries as one value sealed with the node's command key (JSON of name -> value). */
  sealedEnv: z.string().max(1_000_000).optional(),
  workingDir: z.string().optional(),
  stopGraceSeconds: z.number().min(0),
  /** The devices to expose to the process (whole devices, or a memory slice enforced by the vram-guard). */
  devices: placedDevicesSchema.optional(),
  /** The reservation enforced as limits (cgroups or the engine's); absent from hubs before limits were sent. */
  limits: allocationLimitsSchema.optional(),
  /** Present for a container workload: image, ports, volumes (absent: a host process). */
  container: containerPlacementSchema.optional(),
  /** Present for a service: its named ports and probes (the agent runs the probes and reports readiness). */
  service: servicePlacementSchema.optional(),
  /**
   * Present for a model (with its service block): the framework whose server the agent's configuration names and
   * where the model is; the agent fills in the command or container before it starts it.
   */
  model: modelPlacementSchema.optional(),
});

/** A command relayed to an agent on its domain's command topic (key = node id). */
export const agentCommandSchema = z.discriminatedUnion('kind', [
  z.object({ ...commandBase, kind: z.enum(['stop', 'drain']), reason: z.string().max(500) }),
  z.object({ ...commandBase, kind: z.literal('run'), placement: placementSchema }),
  z.object({
    ...commandBase,
    kind: z.literal('stop-allocation'),
    workloadId: z.string().uuid(),
    allocationId: z.string().uuid(),
    gracePeriodSeconds: z.number().min(0),
    reason: z.string().max(500),
  }),
]);

/** A command relayed to an agent. */
export type AgentCommand = z.infer<typeof agentCommandSchema>;
