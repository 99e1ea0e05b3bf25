import { WorkloadSpec, sealSecret } from '@hcn/contracts';
import { hubSealKey, openSealedByHub } from '../../auth/hub-seal';
import type { HubConfig } from '../../config';

/**
 * The spec with its secret environment values sealed with the hub's key, before anything is stored: the log, the
 * read models, every view and the change feed only ever hold the sealed text. A value this hub already sealed
 * (an update that kept it) stays as it is.
 */
export function sealSecrets<S extends WorkloadSpec>(spec: S, config: Pick<HubConfig, 'agentSecret'>): S {
  if (!spec.secretEnv) return spec;
  const key = hubSealKey(config);
  const sealed = Object.fromEntries(
    Object.entries(spec.secretEnv).map(([name, value]) => [
      name,
      openSealedByHub(key, value) !== undefined ? value : sealSecret(key, value),
    ]),
  );
  return { ...spec, secretEnv: sealed };
}
