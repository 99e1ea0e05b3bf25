import { AgentCommand, commandMac } from '@hcn/contracts';
import type { AgentCredentials } from '../auth/agent-credentials';
import type { Clock } from '../tokens';

/** Signs commands for their node (its command key, the time): the one way a command is put on the bus. */
export class CommandSigner {
  constructor(
    private readonly credentials: AgentCredentials,
    private readonly clock: Clock,
  ) {}

  /** The bus message of a command: keyed by its node, signed with the node's command key. */
  message(command: AgentCommand): { key: string; value: string } {
    const stamped = { ...command, issuedAt: this.clock().toISOString() };
    const mac = commandMac(this.credentials.commandKey(command.nodeId), stamped);
    return { key: command.nodeId, value: JSON.stringify({ ...stamped, mac }) };
  }
}
