import { HcnError, TaskSpec, isSealed, sealSecret } from '@hcn/contracts';
import { hubSealKey, openSealedByHub } from '../../auth/hub-seal';
import type { HubConfig } from '../../config';

function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.username !== '';
  } catch {
    return false;
  }
}

/**
 * The task with each Redis URL that carries credentials sealed with the hub's key before anything is stored (the
 * log, the read model and every view hold the sealed text; instances get it as a secret, sealed for their node). A
 * value given sealed must be one this hub sealed (else 400 TASKQUEUE.BAD_REDIS_URL).
 */
export function sealRedisUrls(spec: TaskSpec, config: Pick<HubConfig, 'agentSecret'>): TaskSpec {
  const key = hubSealKey(config);
  const seal = (field: 'inputRedis' | 'outputRedis'): Partial<TaskSpec> => {
    const url = spec[field];
    if (url === undefined) return {};
    if (isSealed(url)) {
      openRedisUrl(url, config, field);
      return { [field]: url };
    }
    return { [field]: hasCredentials(url) ? sealSecret(key, url) : url };
  };
  return { ...spec, ...seal('inputRedis'), ...seal('outputRedis') };
}

/** A task's Redis URL in clear, for the hub's own use (progress, auto-advance). */
export function openRedisUrl(url: string, config: Pick<HubConfig, 'agentSecret'>, field = 'url'): string {
  if (!isSealed(url)) return url;
  const clear = openSealedByHub(hubSealKey(config), url);
  if (clear === undefined) {
    throw new HcnError('TASKQUEUE.BAD_REDIS_URL', `${field} is sealed, but not by this hub`, { field });
  }
  return clear;
}
