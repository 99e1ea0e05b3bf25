import { AgentCommand, commandMac, openSecret, sealSecret } from '@hcn/contracts';
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
    const stamped = { ...this.sealedForNode(command), issuedAt: this.clock().toISOString() };
    const mac = commandMac(this.credentials.commandKey(command.nodeId), stamped);
    return { key: command.nodeId, value: JSON.stringify({ ...stamped, mac }) };
  }

  /** A run command's secret entries, opened with the hub's key and sealed as one value for its node alone. */
  private sealedForNode(command: AgentCommand): AgentCommand {
    if (command.kind !== 'run' || !command.placement.secretEnv) return command;
    const { secretEnv, ...placement } = command.placement;
    const hubKey = this.credentials.secretKey();
    const open = Object.fromEntries(Object.entries(secretEnv).map(([k, v]) => [k, openSecret(hubKey, v)]));
    const sealedEnv = sealSecret(this.credentials.commandKey(command.nodeId), JSON.stringify(open));
    return { ...command, placement: { ...placement, sealedEnv } };
  }
}
