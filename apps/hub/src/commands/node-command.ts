import { labelsSchema, nodeStream, z } from '@hcn/contracts';
import { NodeCommand, NodeEvent, NodeState } from '@hcn/domain';
import { CommandEngine } from '@hcn/commands';
import type { Clock } from '../tokens';
import { httpCommandContext } from '../common/request-scope';
import type { NodeCommandResult } from '../common/command-results';

/** Body of drain and stop requests. */
export const reasonBodySchema = z.object({ reason: z.string().max(500).default('') }).strict();

/** Body of a labels replacement. */
export const labelsBodySchema = z.object({ labels: labelsSchema }).strict();

/** Result of an operator command on a node (its schema: common/command-results.ts). */
export type { NodeCommandResult };

/** Runs one operator command through the hub's node engine on `node-<id>` (shared by the node use cases). */
export async function runNodeCommand(
  nodes: CommandEngine<NodeCommand, NodeEvent, NodeState>,
  clock: Clock,
  command: NodeCommand & { nodeId: string },
): Promise<NodeCommandResult> {
  const context = httpCommandContext({ kind: 'user', id: 'operator' }, clock());
  const handled = await nodes.handle(nodeStream(command.nodeId), command, context);
  return { nodeId: command.nodeId, revision: handled.revision, events: handled.events.map((e) => e.type) };
}

/** Validates a node id path parameter. */
export const nodeIdParamSchema = z.string().uuid();
