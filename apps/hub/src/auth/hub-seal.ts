import { isSealed, openSecret } from '@hcn/contracts';
import type { HubConfig } from '../config';
import { AgentCredentials } from './agent-credentials';

/** The key this hub seals stored secrets with (derived from its agent secret). */
export function hubSealKey(config: Pick<HubConfig, 'agentSecret'>): string {
  return new AgentCredentials(config.agentSecret).secretKey();
}

/** The clear text of a value this hub sealed; undefined for a value in clear or one sealed with another key. */
export function openSealedByHub(key: string, value: string): string | undefined {
  if (!isSealed(value)) return undefined;
  try {
    return openSecret(key, value);
  } catch {
    return undefined;
  }
}
