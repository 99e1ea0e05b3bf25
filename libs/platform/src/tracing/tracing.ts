import { z } from 'zod';
import { envBoolean, parseConfig } from '../config';
import type { AppName } from '../logger';

const url = (name: string) =>
  z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.url({ protocol: /^https?$/, error: `${name}: an http(s) URL` }).optional(),
  );

const tracingSchema = z.object({
  HCN_TRACING: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['off', 'otlp'], { error: 'HCN_TRACING: off or otlp' }).optional(),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: url('OTEL_EXPORTER_OTLP_ENDPOINT'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
  OTEL_SDK_DISABLED: envBoolean(false),
  OTEL_SERVICE_NAME: z.string().optional(),
});

/** Whether and how an app traces. */
export interface TracingSettings {
  readonly enabled: boolean;
  /** The resource's service.name: OTEL_SERVICE_NAME, else `hcn-<app>`. */
  readonly serviceName: string;
}

/**
 * Reads the tracing switch: on with HCN_TRACING=otlp, or when an OTLP endpoint is set
 * (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and HCN_TRACING is not `off`; always off with
 * OTEL_SDK_DISABLED=true. The exporter reads the other standard OTEL_* variables itself.
 */
export function loadTracingSettings(app: AppName, env: NodeJS.ProcessEnv): TracingSettings {
  const c = parseConfig(app, tracingSchema, env);
  const endpoint = c.OTEL_EXPORTER_OTLP_ENDPOINT ?? c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const wanted = c.HCN_TRACING === 'otlp' || (c.HCN_TRACING === undefined && endpoint !== undefined);
  return { enabled: wanted && !c.OTEL_SDK_DISABLED, serviceName: c.OTEL_SERVICE_NAME || `hcn-${app}` };
}

/** Tracing running in this process. */
export interface RunningTracing {
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

let running: RunningTracing | undefined;

/**
 * Starts tracing when the environment asks for it (see loadTracingSettings): the OpenTelemetry SDK and its OTLP/HTTP
 * exporter are loaded only then. Returns undefined when tracing stays off; starts once per process.
 */
export function startTracing(app: AppName, env: NodeJS.ProcessEnv): RunningTracing | undefined {
  const settings = loadTracingSettings(app, env);
  if (!settings.enabled || running) return running;
  const { startOtelTracing } = require('./otel-adapter') as typeof import('./otel-adapter');
  running = startOtelTracing(settings);
  return running;
}

/** Exports the remaining spans and stops tracing, if it runs (at shutdown). */
export async function stopTracing(): Promise<void> {
  const current = running;
  running = undefined;
  await current?.shutdown();
}
