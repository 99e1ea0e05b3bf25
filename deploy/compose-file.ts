import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..');

/** The `.env` helpers of scripts/make-env.js (the script `node scripts/make-env.js` runs). */
export const makeEnv = require('../scripts/make-env') as {
  SECRET_NAMES: readonly string[];
  fillSecrets(example: string, secret?: () => string): string;
  parseEnv(text: string): Record<string, string>;
};

/** A `depends_on` entry in its long form. */
export interface ComposeDependency {
  condition?: 'service_started' | 'service_healthy' | 'service_completed_successfully';
  required?: boolean;
}

/** A service of docker-compose.yml, as far as these checks read it. */
export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  init?: boolean;
  profiles?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test?: string[]; disable?: boolean; interval?: string; start_period?: string };
  depends_on?: Record<string, ComposeDependency> | string[];
}

/** docker-compose.yml, anchors and merge keys resolved. */
export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

/** The text of a file at the repository's root. */
export function readRootFile(name: string): string {
  return readFileSync(join(ROOT, name), 'utf8');
}

/**
 * Compose's variable interpolation of one value: `$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `${VAR:?message}` and `${VAR?message}` (the last two throw the message when the variable is empty or unset).
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (match, name: string | undefined, colon: string, op: string, arg: string, bare: string | undefined) => {
      if (match === '$$') return '$';
      if (bare) return env[bare] ?? '';
      const current = env[name!];
      const missing = colon ? !current : current === undefined;
      if (op === '-') return missing ? arg : current!;
      if (op === '?') {
        if (missing) throw new Error(`${name}: ${arg}`);
        return current!;
      }
      return current ?? '';
    },
  );
}

function interpolateAll(node: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof node === 'string') return interpolate(node, env);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, env));
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateAll(v, env)]));
  return node;
}

/** docker-compose.yml as written (variables not substituted). */
export function rawCompose(): ComposeFile {
  return parse(readRootFile('docker-compose.yml'), { merge: true }) as ComposeFile;
}

/** docker-compose.yml as compose would run it with `env` as its .env (throws where a required variable lacks). */
export function loadCompose(env: Record<string, string | undefined>): ComposeFile {
  return interpolateAll(rawCompose(), env) as ComposeFile;
}

/** `.env.example` with its secrets filled as `node scripts/make-env.js` fills them, parsed. */
export function exampleEnv(): Record<string, string> {
  return makeEnv.parseEnv(makeEnv.fillSecrets(readRootFile('.env.example')));
}

/** A service's dependencies in the long form (the short list form reads as `service_started`). */
export function dependencies(service: ComposeService): Record<string, ComposeDependency> {
  const deps = service.depends_on ?? {};
  return Array.isArray(deps)
    ? Object.fromEntries(deps.map((d) => [d, { condition: 'service_started' as const }]))
    : deps;
}

/** The services whose name starts with `agent-`. */
export function agentServices(compose: ComposeFile): Array<[string, ComposeService]> {
  return Object.entries(compose.services).filter(([name]) => name.startsWith('agent-'));
}
