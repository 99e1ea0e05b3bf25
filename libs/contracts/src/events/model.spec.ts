import { z } from 'zod';
import type { Runtime } from './container.spec';

// container.spec imports service.spec, which imports this file: the runtimes are spelled here (types checked)
const runtimeSchema = z.enum(['process', 'container'] satisfies Runtime[]);

/** A model-serving framework's name (`sklearn`, `onnx`, `torch`, ...): a key of the agents' `models` configuration. */
export const frameworkNameSchema = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9._-]{0,30}[a-z0-9])?$/, 'framework names: a-z, 0-9, . _ -, at most 32');

/** The port a container model server listens on unless its spec says (CNET's mlmodel default). */
export const DEFAULT_MODEL_PORT = 9000;
/** The one named port of a model server (its endpoints are listed under this name). */
export const MODEL_PORT_NAME = 'http';
/** Where a container model server finds its model: `<dir>/<file name>`, bind-mounted read-only. */
export const CONTAINER_MODEL_DIR = '/models';

/** Error code: a model spec names neither `modelPath` nor `modelUrl`. */
export const MODEL_SOURCE_REQUIRED = 'MODEL.SOURCE_REQUIRED';
/** Error code: a model spec names both `modelPath` and `modelUrl`. */
export const MODEL_SOURCE_CONFLICT = 'MODEL.SOURCE_CONFLICT';
/** Error code: `modelPath` is not an absolute path without `..`. */
export const MODEL_PATH_INVALID = 'MODEL.PATH_INVALID';
/** Error code: `modelUrl` is not an http(s) URL without credentials. */
export const MODEL_URL_INVALID = 'MODEL.URL_INVALID';
/** Error code: a field of another workload type on a model, or a model's field on another type. */
export const FIELD_NOT_ALLOWED = 'WORKLOAD.FIELD_NOT_ALLOWED';

/** The fields only a model takes. */
export const MODEL_ONLY_FIELDS = ['modelPath', 'modelUrl', 'framework', 'port'] as const;
/** The fields a model never takes (its server's command, image and port come from the agent's configuration). */
const NOT_FOR_MODELS = ['command', 'image', 'pullPolicy', 'user', 'ports', 'volumes', 'workingDir'] as const;

/** The parts of a workload spec the model rules read. */
export interface ModelShape {
  type: string;
  modelPath?: string;
  modelUrl?: string;
  framework?: string;
  port?: number;
  args?: readonly string[];
}

/** True for an `http:` or `https:` URL without user or password (a spec is stored as written: no secrets in it). */
export function isModelUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
}

/**
 * Model rules: exactly one of `modelPath` (absolute, without `..`) and `modelUrl` (http or https, no credentials),
 * a `framework`, and none of the fields whose values the agent's configuration gives (command, args, image, ports,
 * ...); other types take none of the model's fields. Each refusal carries its own dotted code.
 */
export function checkModelFields(
  spec: ModelShape & { readonly [K in (typeof NOT_FOR_MODELS)[number]]?: unknown },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: string, code: string, message: string): void =>
    ctx.addIssue({ code: 'custom', path: [path], message, params: { code } });
  if (spec.type !== 'model') {
    for (const field of MODEL_ONLY_FIELDS)
      if (spec[field] !== undefined) issue(field, FIELD_NOT_ALLOWED, 'only models take this field');
    return;
  }
  for (const field of NOT_FOR_MODELS)
    if (spec[field] !== undefined)
      issue(field, FIELD_NOT_ALLOWED, "a model's server comes from the agent's configuration, by framework");
  if ((spec.args ?? []).length > 0)
    issue('args', FIELD_NOT_ALLOWED, "a model's server comes from the agent's configuration, by framework");
  if (spec.framework === undefined)
    ctx.addIssue({
      code: 'invalid_type',
      expected: 'string',
      input: undefined,
      path: ['framework'],
      message: 'a model needs its framework (sklearn, onnx, torch, ...)',
    });
  const { modelPath, modelUrl } = spec;
  if (modelPath === undefined && modelUrl === undefined)
    issue('modelPath', MODEL_SOURCE_REQUIRED, 'a model needs modelPath (on the node) or modelUrl');
  if (modelPath !== undefined && modelUrl !== undefined)
    issue('modelUrl', MODEL_SOURCE_CONFLICT, 'modelPath or modelUrl, not both');
  if (modelPath !== undefined && (!modelPath.startsWith('/') || modelPath.split('/').includes('..')))
    issue('modelPath', MODEL_PATH_INVALID, 'an absolute path on the node, without ..');
  if (modelUrl !== undefined && !isModelUrl(modelUrl))
    issue('modelUrl', MODEL_URL_INVALID, 'an http or https URL without credentials');
}

/**
 * A model server's one port as a service port named `http`: a container listens on `port` (default 9000), published
 * on a host port the engine picks; a process listens on host port `port` itself, or on a free one the agent picks
 * when the spec names none (so replicas on one node never collide).
 */
export function modelServicePort(
  runtime: Runtime,
  port: number | undefined,
): { name: string; containerPort?: number; hostPort: number; protocol: 'tcp' } {
  return runtime === 'container'
    ? { name: MODEL_PORT_NAME, containerPort: port ?? DEFAULT_MODEL_PORT, hostPort: 0, protocol: 'tcp' }
    : { name: MODEL_PORT_NAME, hostPort: port ?? 0, protocol: 'tcp' };
}

/**
 * What the agent needs to run a placement as a model server, besides its service block (the `http` port and probe
 * overrides): the framework it looks up in its configuration, where the model is, the runtime and namespace.
 */
export const modelPlacementSchema = z.object({
  framework: frameworkNameSchema,
  runtime: runtimeSchema,
  /** The workload's namespace (a label on a container). */
  namespace: z.string().max(63),
  modelPath: z.string().min(1).max(1024).optional(),
  modelUrl: z.string().min(1).max(2048).optional(),
});
/** What the agent needs to run a placement as a model server. */
export type ModelPlacement = z.output<typeof modelPlacementSchema>;

/** A framework an agent serves models of, and the runtimes it serves them with (a registration carries them). */
export const servedFrameworkSchema = z.object({
  framework: frameworkNameSchema,
  runtimes: z.array(runtimeSchema).min(1).max(8),
});
/** A framework an agent serves models of, and with which runtimes. */
export type ServedFramework = z.output<typeof servedFrameworkSchema>;

/** The reason an agent gives when a model allocation could not start (stable prefixes, then the detail). */
export const MODEL_FAILURES = {
  /** The node has no serving command or image for the framework (its configuration changed since it registered). */
  frameworkUnavailable: 'MODEL.FRAMEWORK_UNAVAILABLE',
  /** `modelPath` does not exist on the node. */
  notFound: 'MODEL.NOT_FOUND',
  /** A container model's `modelPath` is outside the host directories containers may bind. */
  pathNotAllowed: 'MODEL.PATH_NOT_ALLOWED',
  /** `modelUrl` could not be fetched (status, network, timeout). */
  downloadFailed: 'MODEL.DOWNLOAD_FAILED',
  /** `modelUrl` is larger than the agent's cap. */
  downloadTooLarge: 'MODEL.DOWNLOAD_TOO_LARGE',
  /** `modelUrl` did not arrive within the agent's time limit. */
  downloadTimeout: 'MODEL.DOWNLOAD_TIMEOUT',
  /** A process model's `modelPath` cannot be read by the user process workloads run as. */
  notReadable: 'MODEL.NOT_READABLE',
} as const;
