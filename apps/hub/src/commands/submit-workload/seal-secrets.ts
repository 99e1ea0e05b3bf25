import { WorkloadSpec, isSealed, openSecret, sealSecret } from '@hcn/contracts';
import { AgentCredentials } from '../../auth/agent-credentials';
import type { HubConfig } from '../../config';

/**
 * The spec with its secret environment values sealed with the hub's key, before anything is stored: the log, the
 * read models, every view and the change feed only ever hold the sealed text. A value this hub already sealed
 * (an update that kept it) stays as it is.
 */
export function sealSecrets<S extends WorkloadSpec>(spec: S, config: Pick<HubConfig, 'agentSecret'>): S {
  if (!spec.secretEnv) return spec;
  const hubKey = new AgentCredentials(config.agentSecret).secretKey();
  const sealed = Object.fromEntries(
    Object.entries(spec.secretEnv).map(([name, value]) => [
      name,
      alreadySealed(hubKey, value) ? value : sealSecret(hubKey, value),
    ]),
  );
  return { ...spec, secretEnv: sealed };
}

function alreadySealed(hubKey: string, value: string): boolean {
  if (!isSealed(value)) return false;
  try {
    openSecret(hubKey, value);
    return true;
  } catch {
    return false;
  }
}
