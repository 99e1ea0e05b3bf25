import { AgentCommand, commandMacMatches } from '@hcn/contracts';
import type { AppliedCommands } from './applied-commands';

/** How old a signed command may be when it arrives (older ones are refused as replays). */
export const COMMAND_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * Why a command must not be applied, or undefined: it is for another node, unsigned or signed with another key,
 * too old, or older than what this agent may have applied and forgotten (a replay). Repeats of an applied id are
 * the caller's (AppliedCommands).
 */
export function commandRefusal(
  command: AgentCommand,
  nodeId: string,
  key: string | undefined,
  applied: AppliedCommands,
  now: Date,
): string | undefined {
  if (command.nodeId !== nodeId) return `for node ${command.nodeId}`;
  if (!key) return 'no command key yet (not registered)';
  if (!command.mac || !command.issuedAt) return 'unsigned';
  if (!commandMacMatches(key, command)) return 'bad signature';
  const age = now.getTime() - Date.parse(command.issuedAt);
  if (age > COMMAND_MAX_AGE_MS) return `signed ${Math.round(age / 1000)} s ago (a replay)`;
  if (applied.beforeHorizon(command.issuedAt))
    return 'older than the commands this agent remembers (a replay)';
  return undefined;
}
