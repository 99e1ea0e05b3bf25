import { z } from 'zod';
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
  reportsTopic: string;
  commandTopic: string;
  heartbeatIntervalSeconds: number;
  nodeTtlSeconds: number;
}

/** A report an agent publishes on `hcn.agent-reports` (key = node id). */
export const agentReportSchema = z.object({
  kind: z.literal('heartbeat'),
  nodeId: nodeIdSchema,
  domainId: domainIdSchema,
  credential: z.string().min(1).max(512),
  /** Per-agent report sequence, strictly increasing across restarts. */
  seq: z.number().int().nonnegative(),
  sentAt: z.string().datetime({ offset: true }),
  usage: nodeUsageSchema,
  runningAllocations: z.array(z.string().max(200)).max(10000).default([]),
  /** The last report before a graceful stop. */
  final: z.boolean().default(false),
});

/** A report an agent publishes on `hcn.agent-reports`. */
export type AgentReport = z.input<typeof agentReportSchema>;

/** A command relayed to an agent on its domain's command topic (key = node id). */
export const agentCommandSchema = z.object({
  /** Id of the event that caused the command: agents apply each command once. */
  commandId: z.string().uuid(),
  nodeId: nodeIdSchema,
  kind: z.enum(['stop', 'drain']),
  reason: z.string().max(500),
});

/** A command relayed to an agent. */
export type AgentCommand = z.infer<typeof agentCommandSchema>;
