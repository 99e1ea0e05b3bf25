import { frameworkNameSchema, imageSchema, pullPolicySchema, z } from '@hcn/contracts';

/**
 * How this agent serves one model framework: a container `image` (then `command` overrides its entrypoint) serves
 * container models; a `command` alone serves process models. `args`, `command` and `env` values may hold `{model}`
 * (the model's path as the server sees it: on the node for a process, `/models/<file>` in a container, mounted
 * read-only) and `{port}` (the port it must listen on). `healthPath`: the readiness probe's HTTP GET (absent: a TCP
 * connect to the port).
 */
export const servingConfigSchema = z
  .object({
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(4096)).max(256).default([]),
    image: imageSchema.optional(),
    pullPolicy: pullPolicySchema.optional(),
    healthPath: z
      .string()
      .max(1024)
      .regex(/^\/[\x21-\x7e]*$/, 'an absolute path of printable characters')
      .optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), z.string().max(32768)).default({}),
  })
  .strict()
  .refine((entry) => entry.command !== undefined || entry.image !== undefined, {
    message: 'a serving command (process models) or image (container models)',
  });
/** How this agent serves one model framework (from its configuration file, or the built-in sklearn server). */
export type ServingConfig = z.output<typeof servingConfigSchema>;

/** The `models` section of the agent's file: serving commands or images by framework name. */
export const modelsFileSchema = z.record(frameworkNameSchema, servingConfigSchema);

/** Largest model an agent downloads from a `modelUrl` by default (HCN_MODEL_MAX_BYTES). */
export const DEFAULT_MODEL_MAX_BYTES = 4 * 1024 ** 3;
/** How long a model download may take by default, in seconds (HCN_MODEL_DOWNLOAD_TIMEOUT_SECONDS). */
export const DEFAULT_MODEL_DOWNLOAD_SECONDS = 600;

/** The cap and the time limit of a `modelUrl` download. */
export const modelDownloadSchema = z.object({
  maxBytes: z
    .number({ message: 'HCN_MODEL_MAX_BYTES: a whole number of bytes' })
    .int('HCN_MODEL_MAX_BYTES: a whole number of bytes')
    .min(1, 'HCN_MODEL_MAX_BYTES: at least 1'),
  timeoutSeconds: z
    .number({ message: 'HCN_MODEL_DOWNLOAD_TIMEOUT_SECONDS: seconds, 1 to 86400' })
    .min(1, 'HCN_MODEL_DOWNLOAD_TIMEOUT_SECONDS: seconds, 1 to 86400')
    .max(86400, 'HCN_MODEL_DOWNLOAD_TIMEOUT_SECONDS: seconds, 1 to 86400'),
});
/** The cap and the time limit of a `modelUrl` download. */
export type ModelDownloadLimits = z.output<typeof modelDownloadSchema>;

/** The file's `modelDownload` section. */
export const modelDownloadFileSchema = z
  .object({ maxBytes: z.number().optional(), timeoutSeconds: z.number().optional() })
  .strict();
