import { domainIdSchema, labelsSchema, nodeResourcesSchema, z } from '@hcn/contracts';
import { ConfigError, brokerListSchema, envBoolean, logLevelSchema, parseConfig } from '@hcn/platform';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { declaredDevicesSchema } from './detectors/declared-devices';
import {
  DEFAULT_MODEL_DOWNLOAD_SECONDS,
  DEFAULT_MODEL_MAX_BYTES,
  modelDownloadFileSchema,
  modelDownloadSchema,
  modelsFileSchema,
} from './models/model-config';

const fileSchema = z
  .object({
    hubUrl: z.string().url().optional(),
    joinToken: z.string().optional(),
    reenrolmentToken: z.string().optional(),
    domain: domainIdSchema.optional(),
    /** Where clients reach this node's services (an IP address or DNS name; default: its first external IP). */
    address: z.string().optional(),
    labels: labelsSchema.optional(),
    head: z.boolean().optional(),
    dataDir: z.string().optional(),
    kafkaBrokers: z.array(z.string()).optional(),
    /** Cores the node offers (GridCore's `parallelism`); default: the cores detected. */
    cpuCores: z.number().int().min(1).max(4096).optional(),
    /** Accelerators declared instead of detected (simulated fleets, or tools the agent cannot run). */
    devices: declaredDevicesSchema.optional(),
    /** The vram-guard library preloaded into workloads that hold a memory slice. */
    vramGuard: z.string().optional(),
    processes: z
      .object({
        /** `auto` (default): a dedicated account as root, else the agent's; `none`: the agent's; or an account. */
        user: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    containers: z
      .object({
        /** The engine's unix socket (Docker, or podman system service); DOCKER_HOST=unix://... overrides. */
        socket: z.string().optional(),
        /** Host directories container volumes may bind. */
        allowedHostPaths: z.array(z.string().startsWith('/')).max(64).optional(),
        /** Finished containers kept per workload for inspection. */
        keepFinished: z.number().int().min(0).max(100).optional(),
        /** Default pids limit of a container. */
        pidsLimit: z.number().int().min(16).max(1_000_000).optional(),
        /** `auto`: a cgroup per container under /hcn-agent when this agent can write cgroups; `off`: never. */
        cgroups: z.enum(['auto', 'off']).optional(),
      })
      .strict()
      .optional(),
    /** Model serving by framework: `{ <framework>: { command?, args?, image?, pullPolicy?, healthPath?, env? } }`. */
    models: modelsFileSchema.optional(),
    /** The Python (with scikit-learn and joblib) of the built-in `sklearn` server (HCN_SKLEARN_PYTHON). */
    sklearnPython: z.string().min(1).optional(),
    /** Cap and time limit of `modelUrl` downloads. */
    modelDownload: modelDownloadFileSchema.optional(),
  })
  .strict();

const containersSchema = z.object({
  socket: z.string().min(1).optional(),
  allowedHostPaths: z.array(z.string()),
  keepFinished: z.number().int().min(0),
  pidsLimit: z.number().int().min(1),
  cgroups: z.enum(['auto', 'off']),
});

const KAFKA_FETCH_WAIT = 'HCN_KAFKA_FETCH_WAIT_MS: whole milliseconds, 10 to 3000';

/** The agent's consumer-group heartbeat: a third of the 10 s session (a group of one: nothing to rebalance). */
export const AGENT_GROUP_HEARTBEAT_MS = 3000;

/** Default wait of the agent's command fetch: an idle fleet of 1,000 agents asks the broker 1,000 times a second. */
export const AGENT_KAFKA_FETCH_WAIT_MS = 1000;

const schema = z.object({
  hubUrl: z.string().url('hubUrl (HCN_HUB_URL) must be an http(s) URL'),
  joinToken: z.string().min(1, 'joinToken (HCN_JOIN_TOKEN) is required'),
  /** An admin's re-enrolment token, for registering a known node whose credential file was lost. */
  reenrolmentToken: z.string().min(1).optional(),
  domainId: domainIdSchema,
  /** Where clients reach this node's services (absent: detected at registration). */
  advertiseAddress: nodeResourcesSchema.shape.address,
  labels: labelsSchema,
  isHead: z.boolean(),
  dataDir: z.string().min(1),
  kafkaBrokers: z.array(z.string().regex(/^[^:\s]+:\d{1,5}$/)).optional(),
  /** Cores the node offers instead of those detected. */
  cpuCores: z
    .number({ message: 'cpuCores (HCN_CPU_CORES): a whole number of cores, 1 to 4096' })
    .int('cpuCores (HCN_CPU_CORES): a whole number of cores, 1 to 4096')
    .min(1, 'cpuCores (HCN_CPU_CORES): a whole number of cores, 1 to 4096')
    .max(4096, 'cpuCores (HCN_CPU_CORES): a whole number of cores, 1 to 4096')
    .optional(),
  devices: declaredDevicesSchema.optional(),
  vramGuardPath: z
    .string()
    .refine((path) => existsSync(path), 'vramGuard (HCN_VRAM_GUARD): no such file')
    .optional(),
  containers: containersSchema,
  processUser: z.string().min(1),
  /** Serving commands or images by model framework (the operator's; the built-in sklearn server is added when usable). */
  models: modelsFileSchema,
  /** The built-in sklearn server's Python, when configured (absent: the runtime `npm test`/`npm start` installs). */
  sklearnPython: z.string().min(1).optional(),
  modelDownload: modelDownloadSchema,
  /** How long the broker may hold the agent's empty command fetch (commands still arrive at once); ms. */
  kafkaFetchWaitMs: z
    .number({ message: KAFKA_FETCH_WAIT })
    .int(KAFKA_FETCH_WAIT)
    .min(10, KAFKA_FETCH_WAIT)
    .max(3000, KAFKA_FETCH_WAIT),
  /** Least severe level logged (LOG_LEVEL). */
  logLevel: logLevelSchema,
});

/** Validated agent configuration. */
export type AgentConfig = z.output<typeof schema>;

/** Parses `key=value,key=value` labels from the environment. */
function envLabels(text: string | undefined): Record<string, string> | undefined {
  if (!text) return undefined;
  return Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const [key, ...value] = pair.split('=');
        return [key.trim(), value.join('=').trim()];
      }),
  );
}

/** YAML of the agent's config file; the parser is loaded only when there is a file (it costs RSS otherwise). */
function parseYaml(text: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text);
}

/**
 * Loads the agent's configuration: the YAML file named by HCN_AGENT_CONFIG (if any), then the environment
 * (HCN_HUB_URL, HCN_JOIN_TOKEN, HCN_DOMAIN, HCN_LABELS=k=v,..., HCN_HEAD, HCN_DATA_DIR, KAFKA_BROKERS,
 * HCN_VRAM_GUARD, HCN_KAFKA_FETCH_WAIT_MS, HCN_CPU_CORES, HCN_ADVERTISE_ADDRESS, HCN_SKLEARN_PYTHON,
 * HCN_MODEL_MAX_BYTES, HCN_MODEL_DOWNLOAD_TIMEOUT_SECONDS, LOG_LEVEL) on top.
 */
export function loadAgentConfig(env: NodeJS.ProcessEnv): AgentConfig {
  const path = env.HCN_AGENT_CONFIG;
  const file = path
    ? parseConfig(`agent file ${path}`, fileSchema, parseYaml(readFileSync(path, 'utf8')) ?? {})
    : {};
  const brokers = env.KAFKA_BROKERS
    ? parseConfig('agent', brokerListSchema, env.KAFKA_BROKERS)
    : file.kafkaBrokers;
  const head = envBoolean(file.head ?? false).parse(env.HCN_HEAD);
  return parseConfig('agent', schema, {
    hubUrl: env.HCN_HUB_URL ?? file.hubUrl,
    joinToken: env.HCN_JOIN_TOKEN ?? file.joinToken,
    reenrolmentToken: env.HCN_REENROLMENT_TOKEN ?? file.reenrolmentToken,
    domainId: env.HCN_DOMAIN ?? file.domain ?? 'default',
    advertiseAddress: env.HCN_ADVERTISE_ADDRESS ?? file.address,
    labels: envLabels(env.HCN_LABELS) ?? file.labels ?? {},
    isHead: head,
    dataDir: env.HCN_DATA_DIR ?? file.dataDir ?? './data/agent',
    kafkaBrokers: brokers,
    cpuCores: env.HCN_CPU_CORES ? Number(env.HCN_CPU_CORES) : file.cpuCores,
    devices: file.devices,
    vramGuardPath: env.HCN_VRAM_GUARD ?? file.vramGuard ?? builtGuard(),
    processUser: env.HCN_PROCESS_USER ?? file.processes?.user ?? 'auto',
    models: file.models ?? {},
    sklearnPython: env.HCN_SKLEARN_PYTHON || file.sklearnPython,
    modelDownload: {
      maxBytes: numberOr(env.HCN_MODEL_MAX_BYTES, file.modelDownload?.maxBytes ?? DEFAULT_MODEL_MAX_BYTES),
      timeoutSeconds: numberOr(
        env.HCN_MODEL_DOWNLOAD_TIMEOUT_SECONDS,
        file.modelDownload?.timeoutSeconds ?? DEFAULT_MODEL_DOWNLOAD_SECONDS,
      ),
    },
    kafkaFetchWaitMs: env.HCN_KAFKA_FETCH_WAIT_MS
      ? Number(env.HCN_KAFKA_FETCH_WAIT_MS)
      : AGENT_KAFKA_FETCH_WAIT_MS,
    logLevel: env.LOG_LEVEL,
    containers: {
      socket: dockerHostSocket(env.DOCKER_HOST) ?? file.containers?.socket,
      allowedHostPaths: file.containers?.allowedHostPaths ?? [],
      keepFinished: file.containers?.keepFinished ?? 3,
      pidsLimit: file.containers?.pidsLimit ?? 1024,
      cgroups: file.containers?.cgroups ?? 'auto',
    },
  });
}

/** A number from the environment (NaN when it is not one: the schema says so), else the fallback. */
function numberOr(text: string | undefined, fallback: number): number {
  return text ? Number(text) : fallback;
}

/** The socket path of a `unix://` DOCKER_HOST (others are refused: the agent speaks to a local engine). */
function dockerHostSocket(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!value.startsWith('unix://'))
    throw new ConfigError('agent', [`DOCKER_HOST must be unix:///path/to/socket (got ${value})`]);
  return value.slice('unix://'.length);
}

/** The guard `make -C native/vram-guard` builds in this checkout, when it was built. */
function builtGuard(): string | undefined {
  const path = resolve(__dirname, '../../../native/vram-guard/libvramguard.so');
  return existsSync(path) ? path : undefined;
}
