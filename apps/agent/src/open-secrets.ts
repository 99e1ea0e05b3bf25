import { AgentCommand, openSecret } from '@hcn/contracts';

type RunCommand = Extract<AgentCommand, { kind: 'run' }>;

/** A run command with its sealed secret entries opened (the node's command key) into its environment. */
export function withOpenedSecrets(command: RunCommand, commandKey: string | undefined): RunCommand {
  const { sealedEnv, secretEnv: _hubSealed, ...placement } = command.placement;
  void _hubSealed; // never sent to agents; ignored if it were
  if (!sealedEnv || !commandKey) return { ...command, placement };
  const secrets = JSON.parse(openSecret(commandKey, sealedEnv)) as Record<string, string>;
  return { ...command, placement: { ...placement, env: { ...placement.env, ...secrets } } };
}
